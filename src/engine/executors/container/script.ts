/**
 * The program a job's container runs: `/bin/sh -c <SCRIPT> gdflow <stdin> <stdout> <command>`, as the
 * container's first process (PID 1 of its PID namespace).
 *
 * Why a script of its own rather than the command as the first process:
 * - Output: a detached container has no terminal or pipe of ours, so the script sends its output to the job's
 *   log files, bound into the container at LOG_DIR (the executor creates them on the host, never through a
 *   symlink). The container's own log is off.
 * - Stop: PID 1 of a namespace gets only signals it handles, and `stop` signals PID 1 alone. The script handles
 *   SIGTERM by sending it to every other process of the container (kill -1 from PID 1), as the process
 *   executors send it to the job's whole tree, so the tool gets its grace period; after it the runtime SIGKILLs
 *   everything.
 * - The end: when the script exits the kernel kills whatever the command left behind in the container.
 * - Out of memory: the runtime here does not notice a kill by the container's memory limit (podman 4.3 on a
 *   hybrid cgroup layout reports OOMKilled false), so the script reads the kernel's count of such kills from the
 *   container's memory cgroup after the command, and writes it with the exit code to STATUS_FILE.
 *
 * The command and the redirection paths are positional parameters, never part of the script's text, and so are the
 * image's ENTRYPOINT words when the job asks for them (RunSpec.imageEntrypoint): they become the command's own
 * positional parameters ("$@").
 */
import { readFileSync } from 'node:fs';

/** Where the job's log files and status file appear inside the container. */
export const LOG_DIR = '/.gdflow';
export const STDOUT_PATH = `${LOG_DIR}/stdout`;
export const STDERR_PATH = `${LOG_DIR}/stderr`;
export const STATUS_PATH = `${LOG_DIR}/status`;

export const CONTAINER_SCRIPT = [
  `exec >>${STDOUT_PATH} 2>>${STDERR_PATH}`,
  "trap 'kill -s TERM -1 2>/dev/null' TERM",
  '(',
  '  [ -z "$1" ] || exec <"$1"',
  '  [ -z "$2" ] || exec >"$2"',
  '  command=$3',
  '  shift 3',
  '  exec /bin/sh -c "$command" sh "$@"',
  ') &',
  'pid=$!',
  'wait "$pid"; rc=$?',
  // A trapped SIGTERM interrupts wait: wait again until the command has ended.
  'while kill -0 "$pid" 2>/dev/null; do wait "$pid"; rc=$?; done',
  'oom=',
  'for f in /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events; do',
  '  [ -r "$f" ] || continue',
  '  while read -r key value; do [ "$key" = oom_kill ] && oom=$value; done <"$f"',
  '  break',
  'done',
  `echo "exit=$rc oom_kill=$oom" >${STATUS_PATH}`,
  'exit "$rc"',
].join('\n');

/** The container's command line (after the image). */
export function containerCommand(command: string, stdin?: string, stdout?: string, entrypoint: readonly string[] = []): string[] {
  return ['-c', CONTAINER_SCRIPT, 'gdflow', stdin ?? '', stdout ?? '', command, ...entrypoint];
}

export interface ContainerStatus {
  exitCode: number;
  /** Kills by the container's memory limit while the command ran; undefined when the cgroup could not be read. */
  oomKills: number | undefined;
}

/**
 * Whether the container went over its memory limit: the script counts the kills while the command ran; podman's
 * monitor saw one when the script itself was chosen (then the script wrote no status).
 */
export function sawOutOfMemory(status: ContainerStatus | undefined, monitorSawOom: boolean): boolean {
  return (status?.oomKills ?? 0) > 0 || (!status && monitorSawOom);
}

/** What the script wrote; undefined when it wrote nothing (it was killed first) or the file is gone. */
export function readStatus(path: string): ContainerStatus | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const match = /^exit=(\d+) oom_kill=(\d*)$/m.exec(text);
  if (!match) return undefined;
  return { exitCode: Number(match[1]), oomKills: match[2] ? Number(match[2]) : undefined };
}
