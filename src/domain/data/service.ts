import { DataNotFoundError, DataPathError, DataStore, checkPath, formatDataName, type DataRef } from '../../data/index.js';
import { PUBLIC_ACCOUNT, type Caller } from '../access.js';
import { forbidden, invalid, notFound } from '../errors.js';

/**
 * The data store as users reach it (docs/data.md): upload, download, list and delete items named
 * `<account>:/<path>`. An account reads its own and the public account's data and writes only
 * its own.
 */
export class DataService {
  constructor(
    readonly dataStore: DataStore,
    private readonly uploadLimit: number,
  ) {}

  private ref(caller: Caller, account: string, path: string, mode: 'read' | 'write'): DataRef {
    if (account !== caller.accountName && !(mode === 'read' && account === PUBLIC_ACCOUNT)) {
      throw forbidden(mode === 'read' ? `account '${caller.accountName}' may not read data of account '${account}'` : `account '${caller.accountName}' may not write data of account '${account}'`);
    }
    try {
      checkPath(path, `${account}:${path}`);
    } catch (error) {
      throw invalid(error instanceof DataPathError ? error.message : String(error));
    }
    return { account, path };
  }

  async upload(caller: Caller, account: string, path: string, body: NodeJS.ReadableStream | Buffer, md5?: string) {
    const ref = this.ref(caller, account, path, 'write');
    const written = await this.wrap(() => this.dataStore.write(ref, body, { maxBytes: this.uploadLimit, ...(md5 !== undefined ? { expectedMd5Base64: md5 } : {}) }));
    return { name: formatDataName(ref), size: written.size, md5: written.md5 };
  }

  async download(caller: Caller, account: string, path: string): Promise<{ name: string; size: number; stream: NodeJS.ReadableStream }> {
    const ref = this.ref(caller, account, path, 'read');
    const info = await this.wrap(() => this.dataStore.stat(ref));
    if (!info) throw notFound(`data '${formatDataName(ref)}' does not exist`);
    const stream = await this.wrap(() => this.dataStore.createReadStream(ref));
    return { name: formatDataName(ref), size: info.size, stream };
  }

  async stat(caller: Caller, account: string, path: string) {
    const ref = this.ref(caller, account, path, 'read');
    const info = await this.wrap(() => this.dataStore.stat(ref));
    if (!info) throw notFound(`data '${formatDataName(ref)}' does not exist`);
    return { name: formatDataName(ref), size: info.size, modified_time: info.modifiedAt };
  }

  async list(caller: Caller, account: string, prefix: string, limit: number) {
    this.ref(caller, account, '/x', 'read');
    const items = await this.wrap(() => this.dataStore.list(account, prefix === '' ? '/' : prefix, { limit }));
    return { items: items.map((i) => ({ name: i.name, size: i.size, modified_time: i.modifiedAt })), count: items.length };
  }

  async delete(caller: Caller, account: string, path: string): Promise<void> {
    const ref = this.ref(caller, account, path, 'write');
    if (!(await this.wrap(() => this.dataStore.delete(ref)))) throw notFound(`data '${formatDataName(ref)}' does not exist`);
  }

  private async wrap<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof DataPathError) throw invalid(error.message);
      if (error instanceof DataNotFoundError) throw notFound(error.message);
      throw error;
    }
  }
}
