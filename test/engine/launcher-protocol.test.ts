/**
 * The launcher protocol (src/engine/executors/process/launcher/launcher-protocol.ts), which the native launcher
 * (native/gdflow-spawn.c) and the Node one both speak: requests survive encoding whatever their
 * bytes, arrive whole however the pipe splits them, and replies parse to what was sent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeRequests,
  encodeReply,
  encodeRequest,
  parseReply,
  type LaunchReply,
  type LaunchRequest,
} from '../../src/engine/executors/process/launcher/launcher-protocol.js';

const request: LaunchRequest = {
  id: 42,
  file: '/bin/sh',
  args: ['-c', 'echo "a b" $X; printf \'%s\\n\' ü', '', 'line\nbreak'],
  cwd: '/tmp/work dir',
  env: { PATH: '/usr/bin:/bin', X: 'v=1 2', EMPTY: '' },
  stdoutLog: '/tmp/logs/out.log',
  stderrLog: '/tmp/logs/err.log',
  cgroups: ['/sys/fs/cgroup/memory/g/cgroup.procs', '/sys/fs/cgroup/cpu/g/cgroup.procs'],
};

describe('launcher protocol', () => {
  it('a request decodes to what was encoded; an absent cgroup list arrives empty', () => {
    const { requests, rest } = decodeRequests(encodeRequest(request));
    assert.deepEqual(requests, [request]);
    assert.deepEqual(decodeRequests(encodeRequest({ ...request, cgroups: undefined })).requests, [{ ...request, cgroups: [] }]);
    assert.equal(rest.length, 0);
  });

  it('requests split at every byte, and two in one chunk, arrive whole and in order', () => {
    const one = encodeRequest(request);
    const two = encodeRequest({ ...request, id: 43, args: [], env: {}, cgroups: undefined });
    const all = Buffer.concat([one, two]);
    for (let cut = 0; cut <= all.length; cut++) {
      const first = decodeRequests(all.subarray(0, cut));
      const second = decodeRequests(Buffer.concat([first.rest, all.subarray(cut)]));
      const ids = [...first.requests, ...second.requests].map((r) => r.id);
      assert.deepEqual(ids, [42, 43], `cut at ${cut}`);
      assert.equal(second.rest.length, 0);
    }
  });

  it('a field holding NUL cannot be encoded; a malformed request is refused', () => {
    assert.throws(() => encodeRequest({ ...request, args: ['a\0b'] }), /NUL/);
    assert.throws(() => decodeRequests(Buffer.from('X\x001\x00f\x00c\x00o\x00e\x000\x000\x000\x00')), /malformed/);
    assert.throws(() => decodeRequests(Buffer.from('L\x001\x00f\x00c\x00o\x00e\x00two\x00')), /malformed/);
  });

  it('replies parse to what was sent', () => {
    const replies: LaunchReply[] = [
      { id: 1, type: 'spawned', pid: 1234 },
      { id: 2, type: 'failed', stage: 'log', message: 'EACCES: permission denied, open /x' },
      { id: 3, type: 'failed', stage: 'spawn', message: 'spawn /nope ENOENT' },
      { id: 4, type: 'exit', code: 3, signal: null },
      { id: 5, type: 'exit', code: null, signal: 'SIGKILL' },
    ];
    for (const reply of replies) {
      const line = encodeReply(reply);
      assert.ok(line.endsWith('\n') && !line.slice(0, -1).includes('\n'));
      assert.deepEqual(parseReply(line.slice(0, -1)), reply);
    }
    assert.equal(parseReply('E 1 x 0'), undefined);
    assert.equal(parseReply('garbage'), undefined);
  });
});
