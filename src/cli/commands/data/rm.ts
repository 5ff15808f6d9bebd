import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { say } from '../../output.js';

/** `gdflow data rm`: delete data items. */
export function registerDataRm(data: Command): void {
  clientCommand(data.command('rm <name...>').description('delete data items')).action(async (names: string[], flags: ClientFlags) => {
    const client = clientFor(flags);
    for (const name of names) {
      await client.deleteData(name);
      say(`${name} deleted`);
    }
  });
}
