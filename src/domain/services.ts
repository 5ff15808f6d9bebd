import type { Store } from '../store/store.js';
import { AccountService } from './accounts.js';
import { ToolService } from './tools/service.js';
import { WorkflowService } from './workflows/service.js';

/** The domain services, built once over a store and shared by the HTTP layer and the CLI. */
export interface Services {
  store: Store;
  accounts: AccountService;
  tools: ToolService;
  workflows: WorkflowService;
}

export function createServices(store: Store): Services {
  return {
    store,
    accounts: new AccountService(store),
    tools: new ToolService(store),
    workflows: new WorkflowService(store),
  };
}
