import type { WdlValue } from '../values.js';

/**
 * What a WDL run's deferred jobs carry (docs/wdl.md, "Running WDL"): the root job runs the document's workflow (or
 * task); every element of a workflow's body (a declaration, a call, a scatter, an if) is a job of its own, keyed
 * `<scope>/<name>`, which knows where each name it reads comes from.
 */

/** Where a name's value is: known already (an input, a scatter's variable), or the output `name` of the job `key`. */
export type Binding = { readonly value: WdlValue } | { readonly key: string };
export type Bindings = { readonly [name: string]: Binding };

export type WdlJobPayload =
  | { readonly kind: 'root' }
  | {
      readonly kind: 'element';
      /** The document (its file name among the sources) and its workflow the element is in. */
      readonly doc: string;
      /** The element's place in the workflow's body: indexes into nested bodies. */
      readonly path: readonly number[];
      readonly bindings: Bindings;
      /** The full name of the workflow in the inputs JSON (`wf`, `wf.sub`), for calls' inputs set there. */
      readonly prefix: string;
    };

export type WdlGatherPayload =
  /** A workflow's body ran: its outputs, evaluated with its bindings. `root`: the run's own outputs. */
  | { readonly kind: 'workflow'; readonly doc: string; readonly bindings: Bindings; readonly root: boolean; readonly prefix: string; readonly alias?: string }
  /** A scatter's instances ran: each name the body declares, as an array over the instances (a call's outputs member by member). */
  | {
      readonly kind: 'scatter';
      readonly names: readonly string[];
      readonly calls: { readonly [alias: string]: readonly string[] };
      readonly instances: readonly Bindings[];
    }
  /** An if's body ran (its condition was true): each name, as it is. */
  | { readonly kind: 'if'; readonly names: readonly string[]; readonly bindings: Bindings };

/** The outputs of a WDL job: the values of the names it declares (a call's: an Object of its outputs). */
export type WdlJobOutputs = { readonly [name: string]: WdlValue };
