import type { Store } from '../store/store.js';
import { AccountService } from './accounts.js';
import { ToolService } from './tools/service.js';

/** The domain services, built once over a store and shared by the HTTP layer and the CLI. */
export interface Services {
  store: Store;
  accounts: AccountService;
  tools: ToolService;
}

export function createServices(store: Store): Services {
  return {
    store,
    accounts: new AccountService(store),
    tools: new ToolService(store),
  };
}
