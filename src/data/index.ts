export {
  ACCOUNT_NAME,
  checkAccount,
  checkPath,
  checkRef,
  DataPathError,
  formatDataName,
  MAX_NAME_LENGTH,
  MAX_SEGMENT_BYTES,
  parseDataName,
  TEMP_PREFIX,
  type DataRef,
} from './names.js';
export { DataStore, type DataItemInfo, type WriteOptions } from './data-store.js';
export { DataChecksumError, DataNotFoundError, DataTooLargeError } from './data-errors.js';
