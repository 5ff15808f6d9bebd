#!/usr/bin/env node
// Builds the native job launcher (native/gdflow-spawn.c) into dist/native/, part of `npm run build`.
// It is optional: without a C compiler gdflow uses its Node launcher
// (src/engine/executors/process/launcher/launcher-child.ts), which works the same and costs about a millisecond more CPU per job. CC picks the compiler (default: cc).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'native', 'gdflow-spawn.c');
const output = join(root, 'dist', 'native', 'gdflow-spawn');
const cc = process.env.CC || 'cc';

mkdirSync(dirname(output), { recursive: true });
rmSync(output, { force: true }); // never leave an old build behind a failed one
if (process.platform !== 'linux') {
  console.log('gdflow: the native launcher is for Linux only; using the Node launcher');
  process.exit(0);
}
const result = spawnSync(cc, ['-O2', '-Wall', '-Wextra', '-o', output, source], { stdio: 'inherit' });
if (result.error || result.status !== 0) {
  console.log(`gdflow: could not build the native launcher with ${cc} (${result.error?.message ?? `exit ${result.status}`}); using the Node launcher`);
}
