import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GdApiError } from '../../src/client/errors.js';
import { Cluster, through } from '../helpers/cluster.js';
import type { ServerChild } from '../helpers/process.js';
import { waitForExit } from '../helpers/process.js';
import { projectPath, type TestAccount } from '../helpers/server.js';
import { STORE_BACKENDS } from '../helpers/store-backends.js';
import { upload } from '../helpers/tasks.js';
import { createWorkflow, registerTool, toolId } from '../helpers/workflows.js';

/**
 * Durability under SIGKILL (issue 12): two API replicas on one store take concurrent writes (tool creates, tool puts,
 * task activations) while one of them is killed with SIGKILL, ROUNDS times. After each round every write that was
 * answered 200 must be in the store, and every tool name's versions must be 1..n with none duplicated or missing.
 */
// npm test runs a few rounds; npm run chaos runs 20.
const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 5);
const WRITES = Number(process.env.CHAOS_WRITES ?? 200);
const NAMES = ['chaos_a', 'chaos_b', 'chaos_c', 'chaos_d'];
const requirements = { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 1, mem: '64m', disk: '64m', network: false } };

type Write = { kind: 'create'; name: string } | { kind: 'put'; name: string; version: number; marker: string } | { kind: 'activate'; taskName: string };
interface Acknowledged {
  write: Write;
  /** What the answer said: the task id of an activation. */
  result?: string;
}

for (const backend of STORE_BACKENDS) {
  describe(`durability while replicas are killed: ${backend.name}`, { skip: backend.skip }, () => {
    let database = '';
    let cleanup: () => Promise<void> = () => Promise.resolve();
    before(async () => ({ url: database, cleanup } = await backend.database()));
    after(async () => cleanup());

    it(`loses no acknowledged write over ${ROUNDS} SIGKILLs under ${WRITES} concurrent writes each`, { timeout: 600_000 }, async () => {
      const cluster = new Cluster(database);
      try {
        const replicas: ServerChild[] = [await cluster.start('api'), await cluster.start('api')];
        const owner = cluster.account('chaotic', replicas[0]!);
        for (const name of NAMES)
          await registerTool(owner, name, {
            cmd_template: 'cp {{ inputs.src[0].path }} {{ outputs.out[0].path }}',
            inputs: { src: { type: 'file', formats: ['txt'], required: true } },
            outputs: { out: { type: 'file', formats: 'txt', required: true } },
            requirements,
          });
        const tool = await toolId(owner, NAMES[0]!, 1);
        await createWorkflow(owner, 'chaos_flow', {
          nodelist: [
            { node_id: 'load', app_id: 'loaddata', outputs: { data: { enid: 'in' } } },
            { node_id: 'copy', app_id: tool, inputs: { src: [{ enid: 'in' }] }, outputs: { out: [{ enid: 'a' }] } },
            { node_id: 'save', app_id: 'storedata', inputs: { data: { enid: 'a' } } },
          ],
        });
        await upload(owner, '/in/c.txt', 'c\n');
        const { parameter } = await owner.api.json<any>('GET', projectPath(owner.name, 'executable-workflows/chaos_flow/'), { query: { workflow_version: 1 } });
        parameter.Inputs.load.data[0].name = '/in/c.txt';

        const acknowledged: Acknowledged[] = [];
        let attempted = 0;
        const createsSent = new Map<string, number>(NAMES.map((n) => [n, 0]));
        let refused = 0;
        let unanswered = 0;
        for (let round = 0; round < ROUNDS; round++) {
          const clients = replicas.map((r) => through(owner, r));
          const versions = new Map<string, number>();
          for (const name of NAMES)
            versions.set(name, ((await clients[0]!.api.json<any>('GET', projectPath(owner.name, `tools/${name}/`))).tools as any[]).length);
          const writes: Write[] = Array.from({ length: WRITES }, (_, i): Write => {
            const name = NAMES[i % NAMES.length]!;
            if (i % 3 === 0) return { kind: 'create', name };
            if (i % 3 === 1) return { kind: 'put', name, version: 1 + (i % versions.get(name)!), marker: `r${round}w${i}` };
            return { kind: 'activate', taskName: `chaos_r${round}_w${i}` };
          });
          const victim = round % 2;
          const send = async (write: Write, i: number): Promise<void> => {
            const client: TestAccount = clients[i % 2]!;
            attempted++;
            try {
              if (write.kind === 'create') {
                createsSent.set(write.name, createsSent.get(write.name)! + 1);
                // CreateTool answers with an empty body: the version is counted, not named.
                await client.api.send('POST', projectPath(owner.name, 'tools/'), { json: { tool_name: write.name, description: 'chaos' } });
                acknowledged.push({ write });
              } else if (write.kind === 'put') {
                await client.api.send('PUT', projectPath(owner.name, `tools/${write.name}/`), {
                  json: {
                    tool_version: write.version,
                    configs: {
                      name: write.name,
                      description: write.marker,
                      cmd_template: `cp {{ inputs.src[0].path }} {{ outputs.out[0].path }} # ${write.marker}`,
                      inputs: { src: { type: 'file', formats: ['txt'], required: true } },
                      outputs: { out: { type: 'file', formats: 'txt', required: true } },
                      requirements,
                    },
                  },
                });
                acknowledged.push({ write });
              } else {
                const answer = await client.api.json<any>('POST', projectPath(owner.name, 'tasks/'), {
                  json: { workflow_name: 'chaos_flow', workflow_version: 1, task_name: write.taskName, parameters: parameter },
                });
                acknowledged.push({ write, result: answer.task_id });
              }
            } catch (error) {
              if (error instanceof GdApiError && error.status < 500) refused++;
              else unanswered++;
            }
          };
          const inFlight = Promise.all(writes.map((w, i) => send(w, i)));
          await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 200));
          replicas[victim]!.child.kill('SIGKILL');
          await waitForExit(replicas[victim]!.child);
          await inFlight;
          replicas[victim] = await cluster.start('api');

          // Everything acknowledged so far is there, through either replica.
          const reader = through(owner, replicas[round % 2 === 0 ? 1 : 0]!);
          const tools = new Map<string, any[]>();
          for (const name of NAMES) tools.set(name, (await reader.api.json<any>('GET', projectPath(owner.name, `tools/${name}/`))).tools);
          for (const [name, list] of tools) {
            const numbers = list.map((t: any) => t.configs.version as number).sort((x, y) => x - y);
            assert.deepEqual(
              numbers,
              Array.from({ length: numbers.length }, (_, i) => i + 1),
              `round ${round}: versions of ${name} are 1..n`,
            );
          }
          for (const name of NAMES) {
            const creates = acknowledged.filter((a) => a.write.kind === 'create' && a.write.name === name).length;
            const count = tools.get(name)!.length;
            assert.ok(
              count >= 1 + creates && count <= 1 + createsSent.get(name)!,
              `round ${round}: ${name} has ${count} versions for ${creates} acknowledged of ${createsSent.get(name)} creates sent`,
            );
          }
          for (const { write, result } of acknowledged) {
            if (write.kind === 'activate') {
              const task = await reader.api.json<any>('GET', projectPath(owner.name, `tasks/${result!}/`));
              assert.equal(task.task_name, write.taskName);
            }
          }
          // The last acknowledged put of each version is the one stored, unless a later unacknowledged one won.
          const puts = acknowledged.filter((a) => a.write.kind === 'put').map((a) => a.write as Extract<Write, { kind: 'put' }>);
          for (const put of puts.filter((p) => p.marker.startsWith(`r${round}w`))) {
            const stored = await reader.api.json<any>('GET', projectPath(owner.name, `tools/${put.name}/`), { query: { tool_version: put.version } });
            assert.match(stored.tools[0].configs.cmd_template, /# r\d+w\d+$/, `round ${round}: ${put.name}:${put.version} holds a put`);
          }
        }
        const counts = { rounds: ROUNDS, attempted, acknowledged: acknowledged.length, refused, unanswered };
        process.stdout.write(`# ${backend.name}: ${JSON.stringify(counts)}\n`);
        assert.ok(acknowledged.length > ROUNDS * WRITES * 0.2, `enough writes were acknowledged to mean something: ${JSON.stringify(counts)}`);
        assert.ok(unanswered > 0, `some writes were cut off by the kills: ${JSON.stringify(counts)}`);
      } finally {
        await cluster.stop();
      }
    });
  });
}
