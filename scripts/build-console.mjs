#!/usr/bin/env node
// Builds the web console (console/, docs/console.md) into dist/console/, part of `npm run build`: one JavaScript
// bundle and one style sheet (esbuild, minified, named by content hash so that they can be cached for good) and the
// index.html that loads them, which `gdflow serve` serves at /console/. Nothing is fetched from elsewhere at run time.
// It prints the bundle's size, gzipped.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'console');

rmSync(out, { recursive: true, force: true }); // never serve an old build's files
mkdirSync(out, { recursive: true });
const result = await build({
  entryPoints: [join(root, 'console', 'src', 'main.tsx')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome100', 'firefox100', 'safari15'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  entryNames: '[name]-[hash]',
  // The code only some pages need (the yaml library of the tool editor) in chunks loaded when those pages open.
  splitting: true,
  chunkNames: '[name]-[hash]',
  outdir: out,
  metafile: true,
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
});

const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file));
const script = outputs.find((name) => name.startsWith('main-') && name.endsWith('.js'));
const style = outputs.find((name) => name.startsWith('main-') && name.endsWith('.css'));
if (!script || !style) throw new Error(`the console build made no script or no style sheet: ${outputs.join(', ')}`);
copyFileSync(join(root, 'console', 'favicon.svg'), join(out, 'favicon.svg'));
const html = readFileSync(join(root, 'console', 'index.html'), 'utf8')
  .replaceAll('{{script}}', script)
  .replaceAll('{{style}}', style);
writeFileSync(join(out, 'index.html'), html);

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const sizes = outputs
  .filter((name) => name.endsWith('.js'))
  .map((name) => {
    const js = readFileSync(join(out, name));
    return { name, size: js.length, gzipped: gzipSync(js, { level: 9 }).length };
  });
const total = sizes.reduce((sum, s) => sum + s.gzipped, 0);
console.log(
  `gdflow: console built in dist/console/: ${sizes.map((s) => `${s.name} ${kb(s.size)} (${kb(s.gzipped)} gzipped)`).join(', ')}; all JavaScript ${kb(total)} gzipped`,
);
