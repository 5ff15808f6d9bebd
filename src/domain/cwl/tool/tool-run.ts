import type { ExpressionEvaluator } from '../expressions/index.js';
import type { CwlInputObject, DockerRequirement } from '../model.js';
import type { FormatOntology } from '../types/format.js';
import type { FileAccess } from './file-access.js';
import type { EffectiveRequirements } from '../workflow/requirements.js';

/** Where the command runs, as the command sees it: `/var/data` and `/tmp` on gdflow's executors. */
export interface RuntimePlaces {
  readonly outdir: string;
  readonly tmpdir: string;
}

/** CWL's `runtime` object: what expressions see. `exitCode` only where outputs are collected (from v1.1). */
export interface CwlRuntime extends RuntimePlaces {
  /** Whole cores: coresMin rounded up. */
  readonly cores: number;
  /** Mebibytes: ramMin rounded up; outdirSize and tmpdirSize likewise. */
  readonly ram: number;
  readonly outdirSize: number;
  readonly tmpdirSize: number;
  readonly exitCode?: number;
}

/** ResourceRequirement evaluated, with CWL's defaults (cores 1, ram 256 MiB or 1024 for v1.0, 1024 MiB of tmpdir and outdir). */
export interface ResourceRequest {
  readonly coresMin: number;
  readonly coresMax: number;
  readonly ramMin: number;
  readonly ramMax: number;
  readonly tmpdirMin: number;
  readonly tmpdirMax: number;
  readonly outdirMin: number;
  readonly outdirMax: number;
}

/** DockerRequirement in force; `image` is dockerImageId, else dockerPull. */
export interface ContainerRequest {
  readonly image?: string;
  readonly requirement: DockerRequirement;
  /** Under `requirements`: the tool cannot run without it. */
  readonly required: boolean;
}

/**
 * One File or Directory the command must find at `path` (absolute, in the sandbox), parents before children.
 * From `location` (an absolute URI: bind it or copy it), else a literal: a File of `contents`, or an empty
 * Directory that the items after it fill. `writable`: the command may change it, so it gets a copy (or, under
 * InplaceUpdateRequirement, the original itself).
 */
export interface StagedItem {
  readonly class: 'File' | 'Directory';
  readonly path: string;
  readonly location?: string;
  readonly contents?: string;
  readonly writable: boolean;
}

/** What a CommandLineTool run needs, decided before it starts (prepareToolRun). */
export interface ToolRun {
  /** The runtime the expressions saw (outdir moved by dockerOutputDirectory in a container). */
  readonly runtime: CwlRuntime;
  /** The input object as the command and the output expressions see it: Files and Directories at their staged paths. */
  readonly inputs: CwlInputObject;
  /** The command as words; with ShellCommandRequirement `['/bin/sh', '-c', command]`. */
  readonly argv: readonly string[];
  /** The command as one `/bin/sh -c` string: every word quoted, or with ShellCommandRequirement the words joined, quoted unless shellQuote is false. */
  readonly command: string;
  /** Whether ShellCommandRequirement is in force. */
  readonly shell: boolean;
  /** The file to read stdin from: an absolute path in the sandbox. */
  readonly stdin?: string;
  /** Where stdout and stderr go: paths relative to the outdir. */
  readonly stdout?: string;
  readonly stderr?: string;
  /** HOME and TMPDIR (the outdir and tmpdir), then EnvVarRequirement's variables. */
  readonly env: Readonly<Record<string, string>>;
  readonly resources: ResourceRequest;
  /** Seconds, 0 for no limit (ToolTimeLimit). */
  readonly timeLimit: number;
  /** NetworkAccess; false unless the document asks (a v1.0 document always has it, as a hint). */
  readonly networkAccess: boolean;
  /** WorkReuse: false when the document says results must not be reused (no call caching). */
  readonly reusable: boolean;
  /** InplaceUpdateRequirement: writable InitialWorkDir entries are the originals, not copies. */
  readonly inplaceUpdate: boolean;
  readonly container?: ContainerRequest;
  /** Input Files and Directories, staged read-only outside the outdir (under `stagingRoot`). */
  readonly staging: readonly StagedItem[];
  /** InitialWorkDirRequirement's entries, inside the outdir (or at absolute paths, in a container). */
  readonly workDir: readonly StagedItem[];
  readonly successCodes: readonly number[];
  readonly temporaryFailCodes: readonly number[];
  readonly permanentFailCodes: readonly number[];
}

export interface ToolRunOptions {
  /**
   * The requirements and hints in force (effectiveRequirements of src/domain/cwl/workflow/: a step's inherited ones, a
   * job's cwl:requirements); the tool's own when absent.
   */
  readonly effective?: EffectiveRequirements;
  /** Runs JavaScript; needed when InlineJavascriptRequirement is in force. */
  readonly evaluator?: ExpressionEvaluator;
  /** Reads the input Files and Directories (loadContents, loadListing, secondaryFiles, sizes). */
  readonly files: FileAccess;
  /**
   * The run happens in a container of DockerRequirement's image: dockerOutputDirectory becomes the outdir, and
   * InitialWorkDir entries may have absolute names when DockerRequirement is a requirement.
   */
  readonly container?: boolean;
  /** Where input Files and Directories are staged, one directory each: default `/var/lib/cwl/inputs`. */
  readonly stagingRoot?: string;
  /**
   * Look beside an input File for the secondaryFiles its input declares and the File does not list (what cwltool
   * does for the inputs of the whole run); otherwise the File's own list is trusted. Default true.
   */
  readonly discoverSecondaryFiles?: boolean;
  /** The document's format ontology, for formats given as expressions (literal ones were checked by bindInputs). */
  readonly ontology?: FormatOntology;
}

export const DEFAULT_STAGING_ROOT = '/var/lib/cwl/inputs';
