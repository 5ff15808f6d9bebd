/** The Slurm executor: each job one sbatch of a batch script that runs it the host, bwrap or podman way on a node. */
export { SlurmExecutor, SLURM_WRAPS, type SlurmExecutorOptions, type SlurmWrap } from './slurm-executor.js';
