// What counts as a transport failure rather than the target's word (docs/transport.md), and the
// one-line reasons a user sees: each decision here is one a real run depends on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noAnswer, retryAfterMs, retryable, transportProblem } from './transport.ts';

const json = { 'content-type': 'application/json' };

test('a redirect, a rate limit, a non-JSON 2xx or 5xx and an oversized body are transport problems', () => {
  assert.equal(
    transportProblem(301, { location: 'https://login.example.com/sso?key=x', ...json }, 10, true),
    'HTTP 301 redirect to https://login.example.com, not followed',
  );
  assert.equal(transportProblem(429, { 'retry-after': '2' }, 10, true), 'HTTP 429 rate limited (Retry-After 2)');
  assert.equal(transportProblem(502, { 'content-type': 'text/html' }, 150, false), 'HTTP 502 text/html, not JSON');
  assert.equal(transportProblem(200, { 'content-type': 'text/html; charset=utf-8' }, 300, false), 'HTTP 200 text/html, not JSON');
  assert.equal(transportProblem(200, json, 50 * 1024 * 1024, true), 'HTTP 200 with a body over the 16 MB limit');
});

test("a 4xx in any form, a JSON 5xx, a JSON 2xx and an empty answer are the target's word", () => {
  assert.equal(transportProblem(400, { 'content-type': 'text/plain' }, 11, false), undefined);
  assert.equal(transportProblem(404, json, 20, true), undefined);
  assert.equal(transportProblem(500, json, 40, true), undefined, 'a JSON 500 to bad input stays a contract finding');
  assert.equal(transportProblem(200, json, 40, true), undefined);
  assert.equal(transportProblem(204, {}, 0, true), undefined);
});

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
