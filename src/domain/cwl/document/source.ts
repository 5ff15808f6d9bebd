/**
 * Where the loader reads documents from. The domain never touches the filesystem or the network:
 * the CLI gives a file source (src/engine/cwl/file-source.ts), the server an in-memory one holding
 * the files a client uploaded, tests either.
 */
export interface DocumentSource {
  /**
   * The text at `uri` (absolute, without fragment). Rejects with an Error whose message says why
   * (not found, scheme not allowed, outside the allowed directory); the loader reports it at the
   * place that referred to the file.
   */
  read(uri: string): Promise<string>;
}

/** Documents held in memory, by absolute URI (uploaded files, tests). */
export class InMemoryDocumentSource implements DocumentSource {
  private readonly files: Map<string, string>;

  constructor(files: Iterable<readonly [string, string]> | Readonly<Record<string, string>>) {
    const entries = Symbol.iterator in files ? [...files] : Object.entries(files);
    this.files = new Map(entries);
  }

  read(uri: string): Promise<string> {
    const text = this.files.get(uri);
    return text === undefined ? Promise.reject(new Error(`no such document: ${uri}`)) : Promise.resolve(text);
  }
}
