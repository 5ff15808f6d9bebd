/**
 * The file system as WDL's expressions see it (read_*, write_*, glob, size, stdout...), injected so that the domain
 * stays pure: the engine gives one over a job's working directory (src/engine/wdl), tests give one in memory. Paths
 * are as the values hold them; a relative path is relative to the task's working directory.
 */
export interface WdlFiles {
  /** The text of a file; throws when it cannot be read. */
  read(path: string): string;
  /** A new file with this text (write_lines and the like), named after `hint`; its path. */
  write(hint: string, text: string): string;
  /** The files (not directories) matching a shell glob in the working directory, sorted; their paths. */
  glob(pattern: string): string[];
  /** The size in bytes of a file, or of every file under a directory; throws when it does not exist. */
  size(path: string): number;
  /**
   * The path a File or Directory output keeps, from the path the command saw (a host path in the engine), or undefined
   * when nothing is there. Absent: paths are kept as they are.
   */
  locate?(path: string, kind: 'File' | 'Directory'): string | undefined;
  /** The path of the task's standard output and error files (only while outputs are evaluated). */
  readonly stdout?: string;
  readonly stderr?: string;
}

/** No file system: expressions outside tasks' outputs (a workflow's declarations) that try to read one fail. */
export const NO_FILES: WdlFiles = {
  read: (path) => {
    throw new Error(`cannot read ${path} here`);
  },
  write: () => {
    throw new Error('cannot write files here');
  },
  glob: () => {
    throw new Error('glob is only available in a task output section');
  },
  size: (path) => {
    throw new Error(`cannot read ${path} here`);
  },
};
