/** Choose a data item for a run input: the account's items, those of the input's formats first, with a filter. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatSize, formatTime, t } from '../i18n.js';
import { api, session } from '../session.js';
import type { DataItem } from '../types.js';
import { ErrorBox, Loading, useLoad } from './common.js';

/** An item's name without its account (`alice:/reads/x.fq` → `/reads/x.fq`). */
export const pathOf = (name: string): string => name.slice(name.indexOf(':') + 1);

export async function listData(prefix: string, signal?: AbortSignal): Promise<DataItem[]> {
  const account = session()!.account;
  const { items } = await api().json<{ items: DataItem[] }>('GET', `/accounts/${encodeURIComponent(account)}/data/`, {
    query: { prefix, limit: 10000 },
    signal,
  });
  return items;
}

export function DataPicker({ formats, onPick, onClose }: { formats: string[]; onPick: (path: string) => void; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [filter, setFilter] = useState('');
  const [all, setAll] = useState(formats.length === 0);
  const { data, error, loading } = useLoad((signal) => listData('/', signal), []);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  const matches = (name: string) => formats.length === 0 || formats.some((f) => name.toLowerCase().endsWith(`.${f.toLowerCase()}`));
  const items = (data ?? []).filter((item) => (all || matches(item.name)) && pathOf(item.name).toLowerCase().includes(filter.toLowerCase()));
  return (
    <dialog ref={dialog} class="picker" aria-labelledby="picker-title" onCancel={(e) => (e.preventDefault(), onClose())}>
      <h2 id="picker-title">{t('Choose a data item')}</h2>
      <div class="field row">
        <label for="picker-filter">{t('Filter')}</label>
        <input id="picker-filter" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} spellcheck={false} autoFocus />
        {formats.length > 0 && (
          <label class="check">
            <input type="checkbox" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} />{' '}
            {t('Show every format (this input takes {f})', { f: formats.join(', ') })}
          </label>
        )}
      </div>
      <ErrorBox error={error} />
      {loading && !data ? (
        <Loading />
      ) : items.length === 0 ? (
        <p class="muted">{t('No matching data items. Upload some on the Data page.')}</p>
      ) : (
        <div class="table-wrap picker-list">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('Name')}</th>
                <th scope="col">{t('Size')}</th>
                <th scope="col">{t('Modified')}</th>
              </tr>
            </thead>
            <tbody>
              {items.slice(0, 500).map((item) => (
                <tr key={item.name}>
                  <td>
                    <button type="button" class="link" onClick={() => onPick(pathOf(item.name))}>
                      {pathOf(item.name)}
                    </button>
                  </td>
                  <td class="nowrap">{formatSize(item.size)}</td>
                  <td class="nowrap">{formatTime(item.modified_time)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="buttons">
        <button type="button" onClick={onClose}>
          {t('Cancel')}
        </button>
      </div>
    </dialog>
  );
}
