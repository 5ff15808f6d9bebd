/**
 * Data: the account's data items as folders (the store has names, folders are the `/` in them), uploads with
 * progress, downloads, deletion with a confirmation, and the task and job that produced each item a task stored.
 */
import { useRef, useState } from 'preact/hooks';
import { Confirm, ErrorBox, Loading, Progress, useLoad } from '../components/common.js';
import { listData, pathOf } from '../components/data-picker.js';
import { downloadData } from '../components/data-download.js';
import { ProducedBy } from '../components/produced-by.js';
import { errorText, formatSize, formatTime, t } from '../i18n.js';
import { href, navigate } from '../router.js';
import { api, dataPath } from '../session.js';
import type { DataItem } from '../types.js';

interface Upload {
  id: number;
  path: string;
  loaded: number;
  total: number;
  state: 'uploading' | 'done' | 'failed' | 'cancelled';
  error?: string;
  controller: AbortController;
}

let uploadIds = 0;

/** The folders and items right below a prefix (ending in /). */
function entriesBelow(items: DataItem[], prefix: string): { folders: Array<{ name: string; count: number; size: number }>; files: DataItem[] } {
  const folders = new Map<string, { count: number; size: number }>();
  const files: DataItem[] = [];
  for (const item of items) {
    const path = pathOf(item.name);
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) files.push(item);
    else {
      const folder = rest.slice(0, slash);
      const entry = folders.get(folder) ?? { count: 0, size: 0 };
      entry.count++;
      entry.size += item.size;
      folders.set(folder, entry);
    }
  }
  return {
    folders: [...folders].map(([name, e]) => ({ name, ...e })).sort((a, b) => a.name.localeCompare(b.name)),
    files: files.sort((a, b) => a.name.localeCompare(b.name)),
  };
}

export function DataPage({ prefix: given }: { prefix: string }) {
  const prefix = given.endsWith('/') ? given : `${given}/`;
  const list = useLoad((signal) => listData(prefix, signal), [prefix]);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [doomed, setDoomed] = useState<string | undefined>();
  const [failure, setFailure] = useState<unknown>();
  const [folder, setFolder] = useState('');
  const fileInput = useRef<HTMLInputElement>(null);

  const patch = (id: number, change: Partial<Upload>) => setUploads((all) => all.map((u) => (u.id === id ? { ...u, ...change } : u)));

  const upload = async (files: FileList | null) => {
    if (!files || files.length === 0) return;
    const started = [...files].map((file) => ({
      file,
      upload: { id: ++uploadIds, path: prefix + file.name, loaded: 0, total: file.size, state: 'uploading' as const, controller: new AbortController() },
    }));
    setUploads((all) => [...started.map((s) => s.upload), ...all]);
    await Promise.all(
      started.map(async ({ file, upload: u }) => {
        try {
          await api().upload(dataPath(u.path), file, (loaded, total) => patch(u.id, { loaded, total }), u.controller.signal);
          patch(u.id, { state: 'done', loaded: file.size });
        } catch (error) {
          if (error instanceof DOMException && error.name === 'AbortError') patch(u.id, { state: 'cancelled' });
          else patch(u.id, { state: 'failed', error: errorText(error) });
        }
      }),
    );
    if (fileInput.current) fileInput.current.value = '';
    list.reload();
  };

  const download = async (path: string) => {
    setFailure(undefined);
    try {
      await downloadData(path);
    } catch (error) {
      setFailure(error);
    }
  };

  const remove = async (path: string) => {
    setDoomed(undefined);
    setFailure(undefined);
    try {
      await api().send('DELETE', dataPath(path));
      list.reload();
    } catch (error) {
      setFailure(error);
    }
  };

  const parts = prefix.split('/').filter(Boolean);
  const { folders, files } = entriesBelow(list.data ?? [], prefix);
  const goFolder = (event: Event) => {
    event.preventDefault();
    const name = folder.trim().replace(/^\/+|\/+$/g, '');
    if (!name) return;
    setFolder('');
    navigate(href(['data'], { prefix: `${prefix}${name}/` }));
  };
  return (
    <section>
      <h1>{t('Data')}</h1>
      <nav class="crumbs" aria-label={t('Folder')}>
        <a href={href(['data'], { prefix: '/' })}>{t('All data')}</a>
        {parts.map((part, i) => (
          <span key={i}>
            {' / '}
            <a href={href(['data'], { prefix: `/${parts.slice(0, i + 1).join('/')}/` })} aria-current={i === parts.length - 1 ? 'page' : undefined}>
              {part}
            </a>
          </span>
        ))}
      </nav>
      <div class="data-actions">
        <div class="field">
          <label for="upload-files">{t('Upload files to {folder}', { folder: prefix })}</label>
          <input id="upload-files" ref={fileInput} type="file" multiple onChange={(e) => void upload(e.currentTarget.files)} />
        </div>
        <form class="field" onSubmit={goFolder}>
          <label for="new-folder">{t('Open or make a folder')}</label>
          <span class="inline-form">
            <input id="new-folder" value={folder} onInput={(e) => setFolder(e.currentTarget.value)} placeholder={t('folder name')} spellcheck={false} />
            <button type="submit">{t('Open')}</button>
          </span>
        </form>
      </div>
      {uploads.length > 0 && (
        <ul class="uploads" aria-label={t('Uploads')}>
          {uploads.map((u) => (
            <li key={u.id} class={`upload ${u.state}`}>
              <span class="upload-name">{u.path}</span>
              <Progress percent={u.total > 0 ? (100 * u.loaded) / u.total : u.state === 'done' ? 100 : 0} label={t('Upload of {name}', { name: u.path })} />
              <span class="muted small" aria-live="polite">
                {u.state === 'uploading'
                  ? `${formatSize(u.loaded)} / ${formatSize(u.total)}`
                  : u.state === 'done'
                    ? t('uploaded')
                    : u.state === 'cancelled'
                      ? t('cancelled')
                      : `${t('failed')}: ${u.error ?? ''}`}
              </span>
              {u.state === 'uploading' && (
                <button type="button" class="small" onClick={() => u.controller.abort()}>
                  {t('Cancel')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <ErrorBox error={failure} />
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? (
        <Loading />
      ) : (
        list.data && (
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">{t('Name')}</th>
                  <th scope="col">{t('Size')}</th>
                  <th scope="col">{t('Modified')}</th>
                  <th scope="col">{t('Produced by')}</th>
                  <th scope="col">
                    <span class="sr-only">{t('Actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {prefix !== '/' && (
                  <tr>
                    <td colSpan={5}>
                      <a href={href(['data'], { prefix: `/${parts.slice(0, -1).join('/')}${parts.length > 1 ? '/' : ''}` })}>↑ {t('Up')}</a>
                    </td>
                  </tr>
                )}
                {folders.map((f) => (
                  <tr key={`d:${f.name}`} class="folder">
                    <td>
                      <a href={href(['data'], { prefix: `${prefix}${f.name}/` })}>
                        <FolderIcon /> {f.name}/
                      </a>
                    </td>
                    <td class="nowrap muted">{t('{n} item(s), {size}', { n: f.count, size: formatSize(f.size) })}</td>
                    <td />
                    <td />
                    <td />
                  </tr>
                ))}
                {files.map((item) => {
                  const path = pathOf(item.name);
                  const base = path.slice(prefix.length);
                  return (
                    <tr key={item.name}>
                      <td>{base}</td>
                      <td class="nowrap">{formatSize(item.size)}</td>
                      <td class="nowrap">{formatTime(item.modified_time)}</td>
                      <td>
                        <ProducedBy by={item.produced_by} />
                      </td>
                      <td class="nowrap">
                        <button type="button" class="small" onClick={() => void download(path)} aria-label={t('Download {name}', { name: base })}>
                          {t('Download')}
                        </button>{' '}
                        <button type="button" class="small danger" onClick={() => setDoomed(path)} aria-label={t('Delete {name}', { name: base })}>
                          {t('Delete')}
                        </button>
                      </td>
                    </tr>
                  );
                })}
                {folders.length === 0 && files.length === 0 && (
                  <tr>
                    <td colSpan={5} class="muted">
                      {t('This folder is empty.')}
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
        )
      )}
      <Confirm
        open={doomed !== undefined}
        title={t('Delete this data item?')}
        message={<code>{doomed}</code>}
        confirmLabel={t('Delete')}
        danger
        onConfirm={() => doomed && void remove(doomed)}
        onCancel={() => setDoomed(undefined)}
      />
    </section>
  );
}

function FolderIcon() {
  return (
    <svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
      <path d="M1 3.5h5l1.5 1.5H15v8.5H1z" />
    </svg>
  );
}
