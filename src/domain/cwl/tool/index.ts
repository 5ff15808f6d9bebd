/**
 * CommandLineTool and ExpressionTool semantics as pure functions (docs/cwl.md, "CommandLineTool"): prepareToolRun
 * decides everything a run needs before it starts, collectToolOutputs builds the output object from the finished
 * output directory, runExpressionTool evaluates an ExpressionTool. Files are read through the FileAccess and
 * OutputDirectory interfaces (src/engine/cwl/local-files.ts implements them over the local filesystem).
 */
export { prepareToolRun, exitStatus } from './prepare.js';
export { discoverSecondaryFiles, inputFileContext } from './input-files.js';
export { ToolExpressions } from './expressions.js';
export { collectToolOutputs, type CollectOptions } from './collect-outputs.js';
export { runExpressionTool } from './expression-tool.js';
export { OutsideOutputDirectory, ToolRunError } from './errors.js';
export type { EntryStat, FileAccess, ListedEntry, OutputDirectory } from './file-access.js';
export {
  DEFAULT_STAGING_ROOT,
  type ContainerRequest,
  type CwlRuntime,
  type ResourceRequest,
  type RuntimePlaces,
  type StagedItem,
  type ToolRun,
  type ToolRunOptions,
} from './tool-run.js';
