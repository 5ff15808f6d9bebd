import type { Command } from 'commander';
import { registerConfigCheck } from './check.js';
import { registerConfigLs, registerConfigPath, registerConfigUse } from './profiles.js';
import { registerConfigSet, registerConfigUnset } from './set.js';
import { registerConfigShow } from './show.js';

/** `gdflow config ...`: where the server is and which access key signs requests. */
export function registerConfig(program: Command): void {
  const config = program
    .command('config')
    .description('set up the server endpoint, access key, account and project (profiles in ~/.gdflow/config.yml)')
    .addHelpText(
      'after',
      `
The file is ~/.gdflow/config.yml, or $GDFLOW_CONFIG_FILE. It is written readable by you only
(mode 600) and refused when group or others can read it. The environment overrides the profile:
  GDFLOW_ENDPOINT  GDFLOW_ACCESS_KEY_ID  GDFLOW_ACCESS_KEY_SECRET  GDFLOW_ACCOUNT  GDFLOW_PROJECT
and GDFLOW_PROFILE (or --profile) picks the profile.

First setup:
  gdflow config set --endpoint http://127.0.0.1:8080 --access-key-id ID --access-key-secret SECRET
  gdflow config check`,
    );
  registerConfigSet(config);
  registerConfigUnset(config);
  registerConfigShow(config);
  registerConfigLs(config);
  registerConfigUse(config);
  registerConfigPath(config);
  registerConfigCheck(config);
}
