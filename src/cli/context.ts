import type { Command } from 'commander';
import { Client } from '../client/client.js';
import { clientOptions, resolveSettings, type ResolvedSettings } from './client-config.js';

/** Options every command that talks to a server accepts. */
export interface ClientFlags {
  profile?: string;
  project?: string;
  caFile?: string;
  json?: boolean;
}

/**
 * Add `--profile` and `--project` (and, for read commands, `--json`) to a command. `json` may be the help text of
 * `--json` when the command's usual output is not a table.
 */
export function clientCommand(command: Command, options: { json?: boolean | string } = {}): Command {
  command
    .option('--profile <name>', 'config profile to use [GDFLOW_PROFILE]')
    .option('--project <name>', 'project of tools, workflows and tasks [GDFLOW_PROJECT]')
    .option('--ca-file <file>', 'PEM file of a CA to trust for an https:// endpoint (a private CA) [GDFLOW_CA_FILE]');
  if (options.json) command.option('--json', typeof options.json === 'string' ? options.json : 'print JSON instead of a table');
  return command;
}

export function settingsFor(flags: ClientFlags): ResolvedSettings {
  return resolveSettings({
    profile: flags.profile,
    flags: { ...(flags.project ? { project: flags.project } : {}), ...(flags.caFile ? { ca_file: flags.caFile } : {}) },
  });
}

/** A signed client for the chosen profile (exit 2 when nothing is configured). */
export function clientFor(flags: ClientFlags): Client {
  return new Client(clientOptions(settingsFor(flags)));
}

/** The `--profile`/`--project`/`--ca-file` a command was given, to repeat in the commands it suggests. */
export function contextArgs(flags: ClientFlags): string {
  return [
    flags.profile ? ` --profile ${flags.profile}` : '',
    flags.project ? ` --project ${flags.project}` : '',
    flags.caFile ? ` --ca-file ${flags.caFile}` : '',
  ].join('');
}
