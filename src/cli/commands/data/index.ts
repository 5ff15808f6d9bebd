import type { Command } from 'commander';
import { registerDataGet } from './get.js';
import { registerDataLs } from './ls.js';
import { registerDataPut } from './put.js';
import { registerDataRm } from './rm.js';

/** `gdflow data ...`: the data store that tasks read inputs from and write outputs to. */
export function registerData(program: Command): void {
  const data = program
    .command('data')
    .description('upload, download, list and delete data items (task inputs and outputs)')
    .addHelpText(
      'after',
      `
Data names are '/<path>' in your own account, or '<account>:/<path>' (e.g. public:/demo/a.fastq).
  gdflow data put reads_1.fq.gz reads_2.fq.gz /samples/s1/
  gdflow data put run42/ /runs/                # a folder, recursively: /runs/run42/...
  gdflow data ls /samples/
  gdflow data get /results/s1/report.txt
  gdflow data get /runs/run42/ ./copy          # a folder, recursively, into ./copy
  gdflow data rm /samples/s1/reads_1.fq.gz`,
    );
  registerDataPut(data);
  registerDataGet(data);
  registerDataLs(data);
  registerDataRm(data);
}
