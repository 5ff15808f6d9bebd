import { ContentsTooLargeError, loadContents, type FileContentReader } from '../contents.js';
import type { CwlValue, CwlVersion } from '../model.js';
import { WorkflowRunError } from './errors.js';

/**
 * loadContents for a workflow or step input: a file too large for it is the run's values breaking a rule, so it
 * fails as a WorkflowRunError naming the input (`where`). A file the reader cannot read stays the reader's error.
 */
export async function loadContentsFor(where: string, value: CwlValue, reader: FileContentReader, cwlVersion: CwlVersion): Promise<CwlValue> {
  try {
    return await loadContents(value, reader, cwlVersion);
  } catch (error) {
    if (error instanceof ContentsTooLargeError) throw new WorkflowRunError(`${where}: ${error.message}`, { cause: error });
    throw error;
  }
}
