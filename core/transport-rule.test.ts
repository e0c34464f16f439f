// The rule that tells the network's doing from the target's word (docs/transport.md): each decision
// here is one a conformance run and a load run both depend on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { originOf, serverError, transportKind, transportProblem } from './transport-rule.ts';

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

test('each reason falls in one kind, the kinds a load run counts', () => {
  assert.equal(transportKind('no response: ECONNRESET'), 'no-response');
  assert.equal(transportKind('no response: dial: connection refused'), 'no-response');
  assert.equal(transportKind('HTTP 301 redirect to https://login.example.com, not followed'), 'redirect');
  assert.equal(transportKind('HTTP 429 rate limited (Retry-After 2)'), 'rate-limited');
  assert.equal(transportKind('HTTP 200 with a body over the 16 MB limit'), 'too-large');
  assert.equal(transportKind('HTTP 502 text/html, not JSON'), 'not-json');
});

test('a redirect is named by its origin only: never its path, query or user information', () => {
  assert.equal(originOf('https://Login.Example.com:8443/sso?key=secret'), 'https://login.example.com:8443');
  assert.equal(originOf('https://user:secret@sso.example.com/x'), 'https://sso.example.com');
  assert.equal(originOf('/login?next=/console'), 'a path on the same origin');
});

test("serverError: a 5xx in JSON, or any 5xx but a gateway's 502, 503 or 504 page, is the server's own answer", () => {
  assert.equal(serverError(500, true), true);
  assert.equal(serverError(500, false), true);
  assert.equal(serverError(501, false), true);
  assert.equal(serverError(502, true), true);
  for (const status of [502, 503, 504]) assert.equal(serverError(status, false), false, `${status} page`);
  for (const status of [200, 404, 429, 499]) assert.equal(serverError(status, true), false, String(status));
});
