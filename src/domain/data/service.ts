import { DataNotFoundError, DataPathError, DataStore, checkPath, formatDataName, type DataItemInfo, type DataRef } from '../../data/index.js';
import type { DataProvenanceStore } from '../../store/store.js';
import { PUBLIC_ACCOUNT, type Caller } from '../access.js';
import { forbidden, invalid, notFound } from '../errors.js';
import { endedPartly, stillStored } from '../tasks/outputs.js';
import { roundTime } from '../time.js';

/**
 * The data store as users reach it (docs/data.md): upload, download, list and delete items named
 * `<account>:/<path>`. An account reads its own and the public account's data and writes only
 * its own.
 */
export class DataService {
  constructor(
    readonly dataStore: DataStore,
    private readonly uploadLimit: number,
    /** Where items came from (docs/data.md, "Provenance"); without it, items carry none. */
    private readonly provenance?: Pick<DataProvenanceStore, 'getProvenance'>,
  ) {}

  private ref(caller: Caller, account: string, path: string, mode: 'read' | 'write'): DataRef {
    if (account !== caller.accountName && !(mode === 'read' && account === PUBLIC_ACCOUNT)) {
      throw forbidden(
        mode === 'read'
          ? `account '${caller.accountName}' may not read data of account '${account}'`
          : `account '${caller.accountName}' may not write data of account '${account}'`,
      );
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
    const written = await this.wrap(() =>
      this.dataStore.write(ref, body, { maxBytes: this.uploadLimit, ...(md5 !== undefined ? { expectedMd5Base64: md5 } : {}) }),
    );
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

  /** The items below a prefix (a folder, `/dir/`), or the item a prefix names exactly; each with the task that produced it. */
  async list(caller: Caller, account: string, prefix: string, limit: number) {
    this.ref(caller, account, '/x', 'read');
    const items = (await this.itemNamed(account, prefix)) ?? (await this.wrap(() => this.dataStore.list(account, prefix === '' ? '/' : prefix, { limit })));
    const produced = await this.producers(account, items);
    const views = items.map((i) => ({ name: i.name, size: i.size, modified_time: i.modifiedAt, produced_by: produced.get(i.name) ?? null }));
    return { items: views, count: views.length };
  }

  /** The item a prefix without a trailing slash names, as a list of one; undefined when it names none. */
  private async itemNamed(account: string, prefix: string): Promise<Array<{ name: string } & DataItemInfo> | undefined> {
    if (prefix.endsWith('/')) return undefined;
    const ref = { account, path: prefix };
    const info = await this.wrap(() => this.dataStore.stat(ref));
    return info && [{ name: formatDataName(ref), ...info }];
  }

  /** The task and job that produced each item, by name, for the items that still are what their task stored. */
  private async producers(account: string, items: Array<{ name: string } & DataItemInfo>) {
    const out = new Map<string, ReturnType<typeof producedByView>>();
    if (!this.provenance || items.length === 0) return out;
    const byPath = new Map(items.map((i) => [i.name.slice(account.length + 1), i]));
    for (const row of await this.provenance.getProvenance(account, [...byPath.keys()])) {
      const item = byPath.get(row.path);
      if (item && stillStored(row, item)) out.set(item.name, producedByView(row));
    }
    return out;
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

/** An item's `produced_by` (contract/data.ts). */
function producedByView(row: Awaited<ReturnType<DataProvenanceStore['getProvenance']>>[number]) {
  return {
    task_id: row.taskId,
    task_name: row.taskName,
    task_status: row.taskStatus,
    partial: row.taskStatus !== null && endedPartly(row.taskStatus),
    node_id: row.nodeId,
    job_id: row.jobId,
    store_node_id: row.storeNodeId,
    store_job_id: row.storeJobId,
    stored_time: roundTime(row.storedAt),
  };
}
