/**
 * The embedded code (embedded-library.d.ts), loaded when an export first needs it. It is made by the build
 * (scripts/build-cwl-embedded.mjs) into dist/ only: running from the sources (tsx), the build's copy is used, and
 * without a build an export fails saying so, while the rest of gdflow runs.
 */

const BUILT_COPY = '../../../../dist/src/domain/cwl/export/embedded-library.js';

let loading: Promise<string> | undefined;

async function load(): Promise<string> {
  for (const specifier of ['./embedded-library.js', new URL(BUILT_COPY, import.meta.url).href]) {
    try {
      return ((await import(specifier)) as { EMBEDDED_LIBRARY: string }).EMBEDDED_LIBRARY;
    } catch {
      // Not here: the next place.
    }
  }
  throw new Error('the code CWL documents embed is not built (scripts/build-cwl-embedded.mjs, part of npm run build)');
}

export function embeddedLibrary(): Promise<string> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
