import type { DataStore } from '../../data/index.js';
import type { JobResolver } from '../deferred/resolver.js';
import type { Layout } from '../layout.js';
import { WdlResolver } from './resolver.js';

/** The resolver a worker runs WDL runs with (the `wdl` of its resolvers; docs/wdl.md). */
export function createWdlResolver(options: { dataStore: DataStore; layout: Layout }): JobResolver {
  return new WdlResolver(options.layout, options.dataStore);
}
