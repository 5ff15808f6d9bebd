import { createHash } from 'node:crypto';
import { loadDocument } from '../../domain/cwl/document/load.js';
import { InMemoryDocumentSource } from '../../domain/cwl/document/source.js';
import { dataDocuments, type CwlDataLocations } from '../../domain/cwl/runs/locations.js';
import { CWL_DOCUMENT_URI, cwlPlanOf } from '../../domain/cwl/runs/plan.js';
import type { FormatOntology } from '../../domain/cwl/types/format.js';
import { loadFormatOntology } from '../../domain/cwl/types/ontology.js';
import type { CwlRun } from '../../domain/cwl/workflow/index.js';
import type { Task } from '../../store/store.js';
import { stringifyExactJson } from '../../contract/exact-json.js';

/** A CWL run's document as the resolver works with it: loaded once per task and worker. */
export interface LoadedRun extends CwlRun {
  readonly ontology: FormatOntology | undefined;
  /** A digest of the document, for call-cache keys: what a run's outputs are collected by. */
  readonly digest: string;
}

/** How many tasks' documents a worker keeps loaded (a task's jobs are resolved one after another, over its life). */
const KEPT = 64;

/** Loads the documents of CWL runs' tasks (domain/cwl/runs/plan.ts), keeping the most recent ones. */
export class LoadedRuns {
  private readonly runs = new Map<string, Promise<LoadedRun>>();

  constructor(private readonly locations: CwlDataLocations) {}

  of(task: Readonly<Task>): Promise<LoadedRun> {
    let run = this.runs.get(task.id);
    if (run) {
      // Most recently used last.
      this.runs.delete(task.id);
      this.runs.set(task.id, run);
      return run;
    }
    run = this.load(task);
    run.catch(() => this.runs.delete(task.id));
    this.runs.set(task.id, run);
    while (this.runs.size > KEPT) this.runs.delete(this.runs.keys().next().value!);
    return run;
  }

  private async load(task: Readonly<Task>): Promise<LoadedRun> {
    const plan = cwlPlanOf(task.plan);
    if (!plan) throw new Error(`task ${task.id} is not a CWL run`);
    const text = stringifyExactJson(plan.document);
    const { process } = await loadDocument(plan.process, new InMemoryDocumentSource({ [CWL_DOCUMENT_URI]: text }));
    const ontology = process.schemas.length > 0 ? await loadFormatOntology(process.schemas, dataDocuments(task.accountName, this.locations)) : undefined;
    const digest = createHash('sha256').update(text).digest('hex');
    return { root: process, jobRequirements: plan.requirements ?? [], ontology, digest };
  }
}
