import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { canonicalGdHeaders, canonicalResource, percentDecodeOnce, stringToSign } from '../src/signing/canonical.js';
import { fixturePath } from './helpers/paths.js';
import { authorizationHeader, parseAuthorization, signRequest, signString, signaturesEqual } from '../src/signing/hmac.js';
import { hmacSha1Base64, hmacSha1Key } from '../src/signing/hmac-sha1.js';

interface Vector {
  method: string;
  target: string;
  headers: Record<string, string>;
  string_to_sign: string;
  authorization: string;
}

const fixture = JSON.parse(readFileSync(fixturePath('signing-vectors.json'), 'utf8')) as {
  access_key_id: string;
  access_key_secret: string;
  vectors: Vector[];
};

describe('signing: docs/wire.md §1 test vectors', () => {
  for (const vector of fixture.vectors) {
    it(`${vector.method} ${vector.target} ${Object.keys(vector.headers).join(',')}`, () => {
      const request = { method: vector.method, target: vector.target, headers: vector.headers };
      assert.equal(stringToSign(request), vector.string_to_sign);
      const signature = signRequest(fixture.access_key_secret, request);
      assert.equal(authorizationHeader(fixture.access_key_id, signature), vector.authorization);
    });
  }
});

describe('signing: canonical parts', () => {
  it('decodes once, keeps + and malformed escapes', () => {
    assert.equal(percentDecodeOnce('/a%20b/%2541?x=%2B+y&z=%zz'), '/a b/%41?x=++y&z=%zz');
    assert.equal(percentDecodeOnce('/%E5%B7%A5%E5%85%B7/'), '/工具/');
  });

  it('sorts query items only when there is exactly one ?', () => {
    assert.equal(canonicalResource('/p/?b=2&a=1&c'), '/p/?a=1&b=2&c');
    assert.equal(canonicalResource('/p/?b=2?&a=1'), '/p/?b=2?&a=1');
    assert.equal(canonicalResource('/p/'), '/p/');
    // An escaped ? becomes a second ? after decoding: the query is then left as it is.
    assert.equal(canonicalResource('/p/?b=%3F&a=1'), '/p/?b=?&a=1');
  });

  it('keeps trailing slashes and doubled slashes as sent', () => {
    assert.equal(canonicalResource('//accounts/a/'), '//accounts/a/');
  });

  it('writes x-gd headers lower-cased, trimmed and sorted, and nothing when there are none', () => {
    assert.equal(canonicalGdHeaders({ 'X-GD-B': ' 2 ', 'x-gd-a': '1', Date: 'x' }), 'x-gd-a:1\nx-gd-b:2\n');
    assert.equal(canonicalGdHeaders({ Date: 'x' }), '');
  });

  it('parses the Authorization header and compares signatures', () => {
    assert.deepEqual(parseAuthorization('GeneDock id:c2ln'), { accessKeyId: 'id', signature: 'c2ln' });
    assert.equal(parseAuthorization('Bearer abc'), undefined);
    assert.equal(parseAuthorization('GeneDock nocolon'), undefined);
    assert.equal(signaturesEqual('abc=', 'abc='), true);
    assert.equal(signaturesEqual('abc=', 'abd='), false);
    assert.equal(signaturesEqual('abc=', 'abc'), false);
  });
});

describe('signing: HMAC-SHA1', () => {
  const reference = (key: string | Buffer, text: string) => createHmac('sha1', key).update(text, 'utf8').digest('base64');

  it('matches RFC 2202 test cases 1, 2 and 6', () => {
    assert.equal(
      Buffer.from(hmacSha1Base64(hmacSha1Key(Buffer.alloc(20, 0x0b)), 'Hi There'), 'base64').toString('hex'),
      'b617318655057264e28bc0b6fb378c8ef146be00',
    );
    assert.equal(
      Buffer.from(hmacSha1Base64(hmacSha1Key('Jefe'), 'what do ya want for nothing?'), 'base64').toString('hex'),
      'effcdf6ae5eb2fa2d27416d5f184df9c259a7c79',
    );
    // A key longer than a block is hashed first.
    assert.equal(
      Buffer.from(hmacSha1Base64(hmacSha1Key(Buffer.alloc(80, 0xaa)), 'Test Using Larger Than Block-Size Key - Hash Key First'), 'base64').toString('hex'),
      'aa4ae5e15272d00e95705637ce8a3b55ed402112',
    );
  });

  it('agrees with node:crypto for every message length across several blocks, and for many keys', () => {
    const key = hmacSha1Key(fixture.access_key_secret);
    for (let length = 0; length <= 300; length++) {
      const text = 'GET\n\n\n'.concat('x'.repeat(length)).slice(0, length);
      assert.equal(hmacSha1Base64(key, text), reference(fixture.access_key_secret, text), `length ${length}`);
    }
    for (let i = 0; i < 500; i++) {
      const secret = randomBytes(1 + (i % 100))
        .toString('base64')
        .slice(0, 1 + (i % 90));
      const text = randomBytes(i * 3).toString('latin1');
      assert.equal(hmacSha1Base64(hmacSha1Key(secret), text), reference(secret, text), `key ${JSON.stringify(secret)}`);
    }
  });

  it('signs multi-byte text and lone surrogates as their UTF-8 bytes, as node:crypto does', () => {
    for (const text of ['/工具/é', '\ud800', 'a\udfffb', '😀'.repeat(40), 'x'.repeat(10_000) + '工']) {
      assert.equal(signString('secret', text), reference('secret', text));
    }
  });

  it('keeps each key apart when calls alternate', () => {
    const a = signString('key-a', 'message');
    const b = signString('key-b', 'message');
    assert.notEqual(a, b);
    assert.equal(signString('key-a', 'message'), a);
    assert.equal(a, reference('key-a', 'message'));
  });
});
