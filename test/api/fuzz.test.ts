/**
 * Fuzz (issue 15): random and malformed path values, queries, headers and bodies, signed and unsigned, to every
 * route of the API table; no answer may be a 5xx, every 4xx must be the GeneDock JSON error body, and the server
 * must stay up. Bounded: FUZZ_PER_ROUTE requests per route (default 30), seeded (FUZZ_SEED, printed) so that a
 * failure can be replayed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allRoutes } from '../../src/contract/routes.js';
import { assertRefused, rawRequest, signedRequest } from '../helpers/raw.js';
import { simpleTool } from '../helpers/documents.js';
import { projectPath, startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const perRoute = Number(process.env.FUZZ_PER_ROUTE ?? 30);

/** mulberry32: a small seeded generator, so a run can be repeated. */
function generator(s: number): () => number {
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = generator(seed);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const int = (n: number): number => Math.floor(random() * n);

const STRINGS = [
  '',
  'a',
  'abc',
  'fuzz_tool',
  'x'.repeat(2000),
  '..',
  '../../etc/passwd',
  'ü名字',
  '%00',
  '%ZZ',
  'a b',
  '$(touch /tmp/pwned)',
  "'; DROP TABLE tools; --",
  '0'.repeat(24),
  'null',
  '-1',
  '1e309',
  '\u202e',
  '__proto__',
  'constructor',
  // versions in odd number forms (issue 22)
  '1e0',
  '0x1',
  '0b1',
  ' 1',
  '+1',
  '1.0',
];
const NUMBERS = [0, -1, 1, 1.5, 2 ** 31, 2 ** 53, -(2 ** 63), 1e308, Number.MIN_VALUE];

function value(depth: number): unknown {
  switch (depth > 4 ? int(4) : int(8)) {
    case 0:
      return pick(STRINGS);
    case 1:
      return pick(NUMBERS);
    case 2:
      return random() < 0.5;
    case 3:
      return null;
    case 4:
      return Array.from({ length: int(4) }, () => value(depth + 1));
    default: {
      const keys = [
        'tool_name',
        'tool_version',
        'workflow_name',
        'workflow_version',
        'workflow_owner',
        'task_name',
        'description',
        'configs',
        'parameters',
        'nodelist',
        'inputs',
        'outputs',
        'cmd_template',
        'requirements',
        '__proto__',
        'constructor',
        pick(STRINGS),
      ];
      return Object.fromEntries(Array.from({ length: int(5) }, () => [pick(keys), value(depth + 1)]));
    }
  }
}

function body(): { text?: string | Buffer; type?: string } {
  switch (int(10)) {
    case 0:
      return {};
    case 1:
      return { text: JSON.stringify(value(0)), type: 'application/json' };
    case 2:
      return {
        text: JSON.stringify({ tool_version: pick(NUMBERS), configs: { ...simpleTool('fuzz_tool'), ...(value(1) as object) } }),
        type: 'application/json',
      };
    case 3:
      return { text: '{"a":', type: 'application/json' };
    case 4:
      return { text: '['.repeat(100_000), type: 'application/json' };
    case 5:
      return { text: Buffer.from([0xff, 0xfe, 0x7b, 0x00]), type: 'application/json; charset=utf-8' };
    case 6:
      return { text: JSON.stringify(value(0)), type: pick(['text/plain', 'application/xml', 'multipart/form-data; boundary=x', '', 'application/json;;;']) };
    case 7:
      return { text: `{"__proto__":{"polluted":1},"tool_name":"fuzz_tool"}`, type: 'application/json' };
    case 8:
      return { text: JSON.stringify({ tool_version: 1, configs: pick(SEED_TOOL_DEFINITIONS) }), type: 'application/json' };
    default:
      return { text: JSON.stringify({ workflow_name: 'fuzz_wf', workflow_version: 1, parameters: value(1) }), type: 'application/json' };
  }
}

function target(url: string): string {
  const path = url
    .replace(/\([^)]*\)/g, '')
    .replace(/::/g, ':')
    .replace(/:([A-Za-z_]+)/g, () => encodeURIComponent(pick(STRINGS)).replace(/%25/g, pick(['%25', '%']))) // sometimes a bad escape
    .replace(/\*$/, () => pick(['x.txt', 'a/b/c', '..%2F..%2Fetc', '', '%2e%2e/x']));
  const query = Array.from(
    { length: int(4) },
    () =>
      `${encodeURIComponent(pick(['tool_version', 'workflow_version', 'size', 'from', 'to', 'cursor', 'prefix', 'limit', 'expires', 'signature', 'stream', 'view', 'page_size', 'page_token', 'tag_key', 'state', pick(STRINGS)]))}=${encodeURIComponent(String(pick([...STRINGS, ...NUMBERS])))}`,
  );
  return query.length > 0 ? `${path}?${query.join('&')}` : path;
}

/**
 * Seeds: the malformed inputs issue 22 found answered wrongly, sent as they are (and mixed into the random bodies
 * above). Each must be the GeneDock 400, naming what is wrong.
 */
const chain = (n: number, link: string) => link.repeat(n);
const SEED_TEMPLATES: Array<[string, RegExp]> = [
  [`{{ parameters.label${chain(10_000, '|lower')} }}`, /holds more than 256 operators/],
  [`{% set y = parameters.label${chain(10_000, '|lower')} %}{{ y }}`, /holds more than 256 operators/],
  [`{{ 1${chain(10_000, '+1')} }}`, /holds more than 256 operators/],
  [`{{ 'a'${chain(10_000, '~1')} }}`, /holds more than 256 operators/],
  [`{{ parameters.label${chain(10_000, '.a')} }}`, /holds more than 256 operators/],
  [`{{ ${chain(10_000, '(')}1${chain(10_000, ')')} }}`, /nests brackets more than 32 deep/],
  [`${chain(3_000, '{%if 1%}')}x${chain(3_000, '{%endif%}')}`, /nests block statements more than 32 deep/],
  [`{% if 1 %}${chain(5_000, '{%elif 1%}')}{% endif %}`, /more than 100 elif branches/],
];
const misspelt = (mutate: (c: any) => void): Record<string, unknown> => {
  const configs: any = simpleTool('fuzz_tool');
  mutate(configs);
  return configs;
};
const SEED_MEMBERS: Array<[Record<string, unknown>, RegExp]> = [
  [misspelt((c) => (c.inputs.reads.fromats = ['fq'])), /inputs\.reads\.fromats is not a member of an input definition; did you mean formats\?/],
  [misspelt((c) => (c.parameters.label.defualt = 'x')), /parameters\.label\.defualt is not a member of a parameter definition; did you mean default\?/],
  [misspelt((c) => (c.inputs.reads.formats = 'fq')), /inputs\.reads\.formats must be a list/],
  [misspelt((c) => (c.outputs.out.formats = ['fq'])), /outputs\.out\.formats must be a string/],
];
const SEED_TOOL_DEFINITIONS = [
  ...SEED_TEMPLATES.map(([cmd_template]) => ({ ...simpleTool('fuzz_tool'), cmd_template })),
  ...SEED_MEMBERS.map(([configs]) => configs),
];
const ODD_VERSIONS = ['1e0', '0x1', '0b1', '%201', '%2B1', '+1', '1.0'];

let server: TestServer;
let alice: TestAccount;
before(async () => {
  server = await startTestServer();
  alice = await server.account();
});
after(async () => server.close());

describe('fuzz seeds (issue 22): each the GeneDock 400 naming the problem', () => {
  const send = (method: string, rest: string, body?: unknown) => signedRequest(server.url, alice, method, projectPath(alice.name, rest), body);
  before(async () => {
    assert.equal((await send('POST', 'tools/', { tool_name: 'seed_tool' })).status, 200);
    assert.equal((await send('PUT', 'tools/seed_tool/', { tool_version: 1, configs: simpleTool('seed_tool') })).status, 200);
    const tool = (await send('GET', 'tools/seed_tool/')).json().tools[0].configs._id;
    assert.equal((await send('POST', 'workflows/', { workflow_name: 'seed_flow' })).status, 200);
    const configs = {
      nodelist: [
        { node_id: 'load', app_id: 'loaddata', name: 'loaddata', outputs: { data: { enid: 'in' } } },
        { node_id: 'work', app_id: tool, inputs: { reads: [{ enid: 'in' }] }, outputs: { out: [{ enid: 'o' }] } },
        { node_id: 'save', app_id: 'storedata', name: 'storedata', inputs: { data: { enid: 'o' } } },
      ],
    };
    assert.equal((await send('PUT', 'workflows/seed_flow/', { workflow_version: 1, configs })).status, 200);
  });

  it('templates a long input would drive deep (item 2)', async () => {
    for (const [cmd_template, reason] of SEED_TEMPLATES) {
      const configs = { ...simpleTool('seed_tool'), cmd_template };
      assertRefused(await send('PUT', 'tools/seed_tool/', { tool_version: 1, configs }), 400, 'InvalidParameter', reason);
    }
  });

  it('versions in odd number forms, on every route that reads one (item 3)', async () => {
    const routes = [
      ['GET', 'tools/seed_tool/?tool_version='],
      ['GET', 'toolparameters/seed_tool/?tool_version='],
      ['GET', 'tooldetails/seed_tool/?tool_version='],
      ['DELETE', 'tools/seed_tool/?tool_version='],
      ['GET', 'workflows/seed_flow/?workflow_version='],
      ['GET', 'executable-workflows/seed_flow/?workflow_version='],
      ['DELETE', 'workflows/seed_flow/?workflow_version='],
    ] as const;
    for (const [method, rest] of routes) {
      for (const version of ODD_VERSIONS) {
        const response = await send(method, `${rest}${version}`);
        assert.equal(response.status, 400, `${method} ${rest}${version}: ${response.text}`);
        assert.match(response.json().error_message, /_version '.*' is not a positive integer/);
      }
    }
    assert.equal((await send('GET', 'tools/seed_tool/?tool_version=1')).status, 200, 'nothing was deleted');
    assert.equal((await send('GET', 'workflows/seed_flow/?workflow_version=1')).status, 200, 'nothing was deleted');
  });

  it('misspelt and mistyped members of a tool definition (item 4)', async () => {
    for (const [configs, reason] of SEED_MEMBERS) {
      assertRefused(await send('PUT', 'tools/seed_tool/', { tool_version: 1, configs: { ...configs, name: 'seed_tool' } }), 400, 'InvalidParameter', reason);
    }
  });

  it('a store step whose app_id is no store step (item 5)', async () => {
    const configs = (await send('GET', 'workflows/seed_flow/?workflow_version=1')).json().workflows[0].configs;
    configs.nodelist[2].app_id = '55128c94f6f4067d63b956b7';
    const reason = /node 'save' is named storedata, but its app_id '55128c94f6f4067d63b956b7' is not the storedata step's/;
    assertRefused(await send('PUT', 'workflows/seed_flow/', { workflow_version: 1, configs }), 400, 'InvalidParameter', reason);
  });
});

describe(`fuzz: ${perRoute} malformed requests per route (FUZZ_SEED=${seed})`, () => {
  for (const [id, entry] of allRoutes()) {
    it(`${id}: ${entry.method} ${entry.url}`, async () => {
      for (let i = 0; i < perRoute; i++) {
        const t = target(entry.url)
          .replace(/^\/accounts\/[^/]*/, (m) => (random() < 0.7 ? `/accounts/${alice.name}` : m))
          .replace(/\/projects\/[^/]*/, (m) => (random() < 0.7 ? '/projects/default' : m));
        const b = body();
        const headers: Record<string, string> = {};
        if (b.type) headers['Content-Type'] = b.type;
        if (random() < 0.15) headers['Content-MD5'] = pick(['', 'garbage', '1B2M2Y8AsgTpgAmY7PhCfg==']);
        if (random() < 0.1) headers['x-gd-date'] = pick(['yesterday', 'Thu, 01 Jan 1970 00:00:00 GMT']);
        const sign = random() < 0.85 ? { id: alice.accessKeyId, secret: alice.accessKeySecret } : undefined;
        const response = await rawRequest(server.url, {
          method: entry.method,
          target: t,
          headers,
          ...(b.text !== undefined ? { body: b.text } : {}),
          ...(sign ? { sign } : {}),
        });
        const what = `${entry.method} ${t.slice(0, 200)} (${b.type ?? 'no type'}, ${sign ? 'signed' : 'unsigned'}): ${response.status} ${response.text.slice(0, 300)}`;
        assert.ok(response.status < 500, what);
        if (response.status >= 400 && entry.method !== 'HEAD') {
          let parsed: any;
          assert.doesNotThrow(() => (parsed = JSON.parse(response.text)), `not JSON: ${what}`);
          if (entry.url.startsWith('/ga4gh/')) {
            // The GA4GH APIs' own error form (docs/ga4gh.md).
            assert.equal(typeof parsed.msg, 'string', what);
            assert.equal(parsed.status_code, response.status, what);
            continue;
          }
          assert.equal(typeof parsed.error_code, 'string', what);
          assert.equal(typeof parsed.error_message, 'string', what);
          assert.equal(typeof parsed.error_message_chs, 'string', what);
        }
      }
    });
  }

  it('the server is still up and nothing was polluted', async () => {
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
