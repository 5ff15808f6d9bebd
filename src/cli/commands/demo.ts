import type { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import { runDemo } from '../../demo/run-demo.js';
import { flagsToOptions } from './serve.js';

/** `gdflow demo`: run the real alignment pipeline end to end on the embedded store. */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('start an embedded server and run a real pipeline (fastp -> bwa mem -> samtools sort/index -> flagstat) on simulated reads')
    .option('--data-dir <dir>', 'data root (default ./gdflow-data) [GDFLOW_DATA_DIR]')
    .option(
      '--executor <kind>',
      'bwrap (sandbox, default), podman or docker (the tools in containers of the demo image, built when missing), host, or slurm (the cluster SLURM_CONF names) [GDFLOW_EXECUTOR]',
    )
    .option('--container-runtime <path>', 'the docker-compatible CLI of --executor podman or docker (default: its name) [GDFLOW_CONTAINER_RUNTIME]')
    .option('--slurm-wrap <how>', 'with --executor slurm, how a job runs on its node: bwrap (default), host, or podman (in the demo image) [GDFLOW_SLURM_WRAP]')
    .option('--reads <n>', 'simulated read pairs', '5000')
    .action(async (flags: Record<string, string | undefined>) => {
      const config = loadConfig({ flags: { ...flagsToOptions(flags), logLevel: 'warn' } });
      const reads = Number(flags.reads);
      if (!Number.isInteger(reads) || reads < 10 || reads > 10_000_000) throw new Error('--reads must be a whole number from 10 to 10000000');
      const ok = await runDemo(config, { reads, say: (line) => process.stdout.write(`${line}\n`) });
      if (!ok) process.exitCode = 1;
    });
}
