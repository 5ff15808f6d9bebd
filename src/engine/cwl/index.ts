import type { DataStore } from '../../data/index.js';
import type { ExpressionEvaluator } from '../../domain/cwl/expressions/index.js';
import type { JobResolver } from '../deferred/resolver.js';
import type { Layout } from '../layout.js';
import { DataStoreLocations } from './data-locations.js';
import { LoadedRuns } from './loaded-runs.js';
import { CwlResolver } from './resolver.js';

/**
 * CWL in the engine: the resolver of CWL runs' deferred jobs (resolver.ts), the data store's `gdflow:` locations
 * (data-locations.ts), and local files for the CLI (file-source.ts, local-files.ts).
 */
export { DataStoreLocations } from './data-locations.js';

/** The resolver a worker runs CWL runs with (the `cwl` of its resolvers), evaluating their JavaScript with `evaluator`. */
export function createCwlResolver(options: { dataStore: DataStore; layout: Layout; evaluator: ExpressionEvaluator }): JobResolver {
  const { dataStore, layout, evaluator } = options;
  return new CwlResolver(new LoadedRuns(new DataStoreLocations(dataStore)), evaluator, layout, dataStore);
}
