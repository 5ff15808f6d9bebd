// ESLint for every TypeScript file tsc builds here: src, test, bench, scripts (tsconfig.json) and the web console
// (console/tsconfig.json; packages/client has no sources of its own, it builds src/client). typescript-eslint's
// recommended type-checked rules everywhere; formatting is Prettier's (.prettierrc), never ESLint's.
// `npm run lint` allows no warning. A rule relaxed below says why; an inline disable gives its reason on its line.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'packages/**/dist/**',
      'packages/**/node_modules/**',
      'native/**',
      // Generated at build time from the CWL library (scripts/build-cwl-embedded.mjs).
      'src/domain/cwl/export/embedded/**',
    ],
  },
  { files: ['**/*.{ts,tsx}'], extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked] },
  // The build scripts are plain Node ES modules with no tsconfig: the untyped recommended rules only.
  { files: ['**/*.{mjs,js}'], extends: [js.configs.recommended], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // node:test's describe/it/test return promises the runner itself awaits (nested ones included): leaving them
      // unawaited is how node:test is meant to be written, so those calls are known safe. Every other promise must
      // be awaited, returned or voided.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
      // `_name` marks a parameter or binding kept for its position (a callback's signature, a destructured rest).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // Tests read the server's JSON answers (and fixtures, CLI --json output) as untyped documents on purpose,
    // `api.json<any>(...)`: what they check is the wire shape itself, with assertions, so a type would only restate
    // what the assertion proves (or hide a wrong answer behind a cast). The no-unsafe-* rules and no-explicit-any
    // flag exactly that reading, about 2,000 times; every other rule applies to tests as it does to src.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The house rules of issue 23 for the product's own code: small files, functions a reader can hold in mind.
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 500, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 150, skipBlankLines: true, skipComments: true }],
    },
  },
);
