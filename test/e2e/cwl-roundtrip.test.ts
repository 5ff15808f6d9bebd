/**
 * The round trip of issue 24 ("How it is checked"): every CommandLineTool of the CWL v1.2 conformance suite
 * (../shared/cwl-v1.2/, read in place) that gdflow imports is exported again (GET tools/<name>/cwl/, what
 * `gdflow cwl export tool` prints), and cwltool validates the exported document. The import is the CLI's own path
 * (read, checked and packed here, default Files uploaded, POST cwl/import/) against a real server; the exported
 * documents are validated by one Python process calling cwltool's main once a document (`cwltool --validate`, without
 * paying its start-up of several seconds each time).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultSuite } from '../../scripts/cwl/options.js';
import { loadSuite } from '../../scripts/cwl/suite.js';
import { InputUploads } from '../../src/cli/cwl/input-uploads.js';
import { stringifyExactJson } from '../../src/contract/exact-json.js';
import { loadLocalDocument } from '../../src/cli/cwl/local-run.js';
import { cliFixture, type CliFixture } from '../cli/support.js';
import { skipWithout } from '../helpers/components.js';
import { cwltoolUnavailable } from '../helpers/cwltool.js';

const SUITE = defaultSuite();
const noSuite = skipWithoutCwlSuite(SUITE);
const skip = noSuite ?? skipWithout(cwltoolUnavailable());

/** Tools whose InitialWorkDir listing names Files and a Directory, which export as literals (see the test). */
const LISTING_FILES = ['tests/iwd/iwd-fileobjs1.cwl', 'tests/iwd/iwd-fileobjs2.cwl'];

/** Each path on stdin validated by cwltool's main: one line `status<TAB>path<TAB>message` a document. */
const VALIDATE = `
import sys, io, logging, re
from cwltool.main import main
for path in sys.stdin.read().split("\\n"):
    if not path: continue
    err = io.StringIO()
    handler = logging.StreamHandler(err)
    logging.getLogger("cwltool").addHandler(handler)
    try:
        status = main(["--validate", path], stdout=io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), stderr=err)
    except Exception as error:
        status, _ = 1, err.write(f"ERROR {error!r}")
    logging.getLogger("cwltool").removeHandler(handler)
    text = re.sub(r"\\x1b\\[[0-9;]*m", "", err.getvalue())
    message = " | ".join(l.strip() for l in text.split("\\n") if l.strip() and not l.startswith("INFO"))
    print(f"{status}\\t{path}\\t{message[:2000]}", flush=True)
`;
import { skipWithoutCwlSuite } from '../helpers/cwl-suite.js';

function validateAll(paths: string[]): Promise<Map<string, { status: number; message: string }>> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/python3', ['-c', VALIDATE], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`the cwltool validation process exited ${code}: ${stderr.slice(-2000)}`));
      const results = new Map<string, { status: number; message: string }>();
      for (const line of stdout.split('\n').filter(Boolean)) {
        const [status, path, message] = line.split('\t');
        results.set(path!, { status: Number(status), message: message ?? '' });
      }
      resolve(results);
    });
    child.stdin.end(paths.join('\n'));
  });
}

/** The suite's CWL documents (DOC or DOC#id), each once, for the tests that are meant to run (not should_fail). */
function suiteDocuments(): string[] {
  const { root, tests } = loadSuite(SUITE);
  return [...new Set(tests.filter((test) => !test.shouldFail).map((test) => join(root, test.tool)))];
}

describe('the CWL suite round trip: imported CommandLineTools export to documents cwltool validates', { skip, timeout: 1_200_000 }, () => {
  let f: CliFixture;
  before(async () => {
    f = await cliFixture();
  });
  after(async () => f?.close());

  it('imports each tool it can, exports it, and cwltool validates every exported document', async (t) => {
    const tools = suiteDocuments();
    const exported = new Map<string, string>();
    const refused: string[] = [];
    for (const [i, tool] of tools.entries()) {
      const name = `suite_tool_${i}`;
      try {
        const local = await loadLocalDocument(tool, SUITE);
        if ((local.process as { class?: string }).class !== 'CommandLineTool') continue;
        const uploads = new InputUploads(f.client);
        const document = await uploads.rewriteDocument(local.packed.document);
        await uploads.upload();
        await f.client.importCwl({ document, process: local.packed.process, name });
      } catch (error) {
        refused.push(`${tool}: ${(error as Error).message.split('\n')[0]}`);
        continue;
      }
      const path = join(f.dir, `${name}.cwl`);
      writeFileSync(path, stringifyExactJson(await f.client.exportToolCwl(name), 2));
      exported.set(path, tool);
    }
    t.diagnostic(`${tools.length} documents in the suite: ${exported.size} CommandLineTools imported and exported, ${refused.length} documents not imported`);
    for (const line of refused) t.diagnostic(`not imported: ${line}`);
    assert.ok(exported.size >= 100, `only ${exported.size} tools imported`);

    const started = performance.now();
    const results = await validateAll([...exported.keys()]);
    t.diagnostic(`cwltool validated ${results.size} documents in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const invalid = new Map(
      [...exported]
        .filter(([path]) => results.get(path)?.status !== 0)
        .map(([path, tool]) => [tool.slice(SUITE.length + 1), results.get(path)?.message ?? 'no answer']),
    );
    for (const [tool, message] of invalid) t.diagnostic(`invalid for cwltool: ${tool}: ${message}`);
    assert.deepEqual([...invalid.keys()], [], 'every exported document is valid CWL for cwltool');
    // The listings' Files and Directory were uploaded at import (gdflow: locations, a scheme cwltool refuses there):
    // they export as literals, the Directory's tree with them.
    for (const tool of LISTING_FILES) {
      const path = [...exported].find(([, source]) => source.endsWith(tool))?.[0];
      assert.ok(path, `${tool} was imported and exported`);
      const text = readFileSync(path, 'utf8');
      assert.doesNotMatch(text, /gdflow:/, tool);
      const listing = JSON.stringify(JSON.parse(text).requirements);
      assert.match(listing, /"class":"File","basename":"inp-filelist\.txt","contents":"[^"]+"/, tool);
      assert.match(listing, /"class":"Directory","basename":"testdir","listing":\[/, tool);
      assert.match(listing, /"class":"Directory","basename":"c","listing":\[\{"class":"File","basename":"d","contents":/, tool);
    }
  });
});
