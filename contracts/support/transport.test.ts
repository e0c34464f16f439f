// What counts as a transport failure rather than the target's word (docs/transport.md), and the
// one-line reasons a user sees: each decision here is one a real run depends on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noAnswer, retryAfterMs, retryable } from './transport.ts';

test('reads retry answers that may come right the next time, not redirects, rate limits or oversized bodies', () => {
  assert.ok(retryable('no response: ECONNRESET'));
  assert.ok(retryable('HTTP 502 text/html, not JSON'));
  assert.ok(retryable('response cut short mid-body'));
  assert.ok(!retryable('HTTP 301 redirect to https://x.example, not followed'));
  assert.ok(!retryable('HTTP 429 rate limited'));
  assert.ok(!retryable('HTTP 200 with a body over the 16 MB limit'));
});

test('Retry-After in seconds or as an HTTP date', () => {
  assert.equal(retryAfterMs('3'), 3000);
  assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 4_000), 6000);
  assert.equal(retryAfterMs('soon'), undefined);
  assert.equal(retryAfterMs(undefined), undefined);
});

test('a thrown request error becomes its code, from the first line only (the call log lists the key)', () => {
  const log = '\nCall log:\n  - SERVICE-API-KEY: cc_secret';
  assert.equal(noAnswer(new Error(`apiRequestContext.fetch: socket hang up (ECONNRESET)${log}`), 15000), 'no response: ECONNRESET');
  assert.equal(noAnswer(new Error(`apiRequestContext.fetch: connect ECONNREFUSED 127.0.0.1:9${log}`), 15000), 'no response: ECONNREFUSED');
  assert.equal(noAnswer(new Error(`apiRequestContext.fetch: Timeout 2000ms exceeded.${log}`), 2000), 'no response: ETIMEDOUT (none within 2 s)');
  assert.equal(noAnswer(new Error(`apiRequestContext.fetch: aborted${log}`), 15000), 'response cut short mid-body');
  assert.equal(noAnswer(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND' } }), 15000), 'no response: ENOTFOUND');
  assert.ok(!noAnswer(new Error(`apiRequestContext.fetch: something new${log}`), 1000).includes('cc_secret'));
});
