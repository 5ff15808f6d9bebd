import type { Command } from 'commander';
import { clientCommand, clientFor, settingsFor, type ClientFlags } from '../../context.js';
import { printJson, say } from '../../output.js';

/** `gdflow config check`: ask the server whom the configured key belongs to. */
export function registerConfigCheck(config: Command): void {
  clientCommand(config.command('check').description('check the settings: sign a request and show the account and user of the key'), {
    json: 'print the account and user as JSON instead of a sentence',
  }).action(async (flags: ClientFlags) => {
    const settings = settingsFor(flags);
    const client = clientFor(flags);
    const who = await client.whoami();
    const value = {
      endpoint: settings.values.endpoint,
      profile: settings.profile,
      account_name: who.account_name,
      user_name: who.user_name,
      account: await client.accountName(),
      project: client.project,
    };
    if (flags.json) return printJson(value);
    say(`ok: ${value.endpoint} accepts the key of user ${who.user_name} (account ${who.account_name}); addressing ${value.account}/${value.project}`);
  });
}
