import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../package-root.js';

/** The demo's tool and workflow documents, from examples/demo/ (the same files users can read and reuse). */

const EXAMPLES = join(packageRoot(), 'examples', 'demo');

export const DEMO_TOOLS = ['fastp', 'bwa_mem', 'samtools_sort_index', 'samtools_flagstat'] as const;

const TOOL_FILES: Record<(typeof DEMO_TOOLS)[number], string> = {
  fastp: 'fastp-tool.yml',
  bwa_mem: 'bwa-mem-tool.yml',
  samtools_sort_index: 'samtools-sort-index-tool.yml',
  samtools_flagstat: 'samtools-flagstat-tool.yml',
};

/** The image the demo's tools run in under the container executors (scripts/images/build-demo.sh). */
export const DEMO_IMAGE = 'localhost/gdflow-demo:latest';

/** A demo tool's document; `image` replaces the image it names (the examples name the biocontainers ones). */
export function toolDocument(name: (typeof DEMO_TOOLS)[number], image?: string): Record<string, unknown> {
  const app = (parse(readFileSync(join(EXAMPLES, TOOL_FILES[name]), 'utf8')) as { app: Record<string, unknown> }).app;
  if (image !== undefined) {
    const requirements = app.requirements as { container?: { image?: string } };
    requirements.container = { ...requirements.container, image };
  }
  return app;
}

/** The workflow with its `{account}` placeholders filled in. */
export function workflowDocument(account: string): { name: string; description: string; nodelist: unknown[] } {
  const text = readFileSync(join(EXAMPLES, 'align-workflow.yml'), 'utf8').replaceAll('{account}', account);
  return (parse(text) as { workflow: { name: string; description: string; nodelist: unknown[] } }).workflow;
}
