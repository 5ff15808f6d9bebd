import type { Command } from 'commander';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { missingData } from '../../not-found.js';
import { say } from '../../output.js';

/** `gdflow data rm`: delete data items. */
export function registerDataRm(data: Command): void {
  clientCommand(data.command('rm <name...>').description('delete data items')).action(async (names: string[], flags: ClientFlags) => {
    const client = clientFor(flags);
    for (const name of names) {
      await client.deleteData(name).catch(missingData(client, name));
      say(`${name} deleted`);
    }
  });
}
