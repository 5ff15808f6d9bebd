import type { WdlFileLinks } from '../domain/wdl/workflows/views.js';
import type { LinkSigner } from './link-signer.js';

export type WdlFilePart = 'source' | 'dependencies';

/**
 * The `source` and `dependencies` links of a WDL workflow version (docs/wire.md §8): gwc's `workflow get` downloads
 * them with a plain, unsigned GET, as it does `Log_downloadURL`; so they carry their own expiry and signature.
 */
export class SignedWdlFileLinks implements WdlFileLinks {
  constructor(private readonly signer: LinkSigner) {}

  async url(baseUrl: string, versionId: string, part: WdlFilePart): Promise<string> {
    return `${baseUrl}/wdl-files/${versionId}/${part}/?${await this.signer.query(subject(versionId, part))}`;
  }

  check(versionId: string, part: WdlFilePart, expires: unknown, signature: unknown): Promise<string | undefined> {
    return this.signer.check(subject(versionId, part), expires, signature);
  }
}

/** What a link signs: never a job id (those start with a task id, 24 hex digits). */
const subject = (versionId: string, part: WdlFilePart): string => `wdl:${versionId}:${part}`;
