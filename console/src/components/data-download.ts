/**
 * Download a data item of the signed-in account: a signed GET (a plain link could not carry the signature), its bytes
 * handed to the browser as a file named after the item.
 */
import { api, dataPath } from '../session.js';

export async function downloadData(path: string): Promise<void> {
  const response = await api().send('GET', dataPath(path));
  const url = URL.createObjectURL(await response.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = path.slice(path.lastIndexOf('/') + 1);
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
