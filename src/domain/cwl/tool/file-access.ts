/**
 * What the tool semantics need to know about files, as interfaces the engine implements
 * (src/engine/cwl/local-files.ts over the local filesystem). The domain never touches a filesystem itself.
 */

/** A File or a Directory as seen through an interface; undefined from `stat` means nothing is there. */
export type EntryStat = { readonly class: 'File'; readonly size: number } | { readonly class: 'Directory' };

/** An entry of a directory: its name, and what `stat` would say of it. */
export type ListedEntry = EntryStat & { readonly basename: string };

/**
 * Read-only access to input Files and Directories by their `location` (an absolute URI), for loadContents,
 * loadListing, secondaryFiles discovery, sizes and checksums. Rejects with an Error saying why when a location
 * cannot be read (a scheme it does not serve, a permission).
 */
export interface FileAccess {
  stat(location: string): Promise<EntryStat | undefined>;
  /** The first `bytes` bytes of a file (fewer when it is shorter). */
  readPrefix(location: string, bytes: number): Promise<Uint8Array>;
  /** A directory's entries, in no particular order; a child's location is the directory's plus `/` and its encoded name. */
  list(location: string): Promise<readonly ListedEntry[]>;
  /** The file's sha1, as hex. */
  sha1(location: string): Promise<string>;
}

/**
 * A finished run's output directory, read-only, addressed by paths relative to it (`out.txt`, `sub/a.bam`; `.`
 * is the directory itself). Implementations must refuse what leaves the directory: a path through `..`, and a
 * symbolic link (or a link in the path) that resolves outside it, which `stat` and the readers reject with an
 * OutsideOutputDirectory error naming the path, so that a tool cannot hand out a file of the host (`ln -s /etc/passwd out`).
 */
export interface OutputDirectory {
  /** The directory's absolute URI, without a trailing slash: output locations are this plus `/` and the encoded relative path. */
  readonly location: string;
  /**
   * The paths matching a POSIX glob(3) pattern relative to the directory (`*`, `?`, `[...]` within one path
   * segment; a leading `.` only matched explicitly; no braces, no `**` recursion), files and directories, in no
   * particular order.
   */
  glob(pattern: string): Promise<readonly string[]>;
  stat(path: string): Promise<EntryStat | undefined>;
  readPrefix(path: string, bytes: number): Promise<Uint8Array>;
  list(path: string): Promise<readonly ListedEntry[]>;
  sha1(path: string): Promise<string>;
}
