// Spec 4.0 and 5: every operation requires SERVICE-API-KEY, sent in the header only.
import { randomInt } from 'node:crypto';
import { checks, expect, test, type T } from '../support/suite-test.ts';
import { expectClientError, expectNotAccepted, metricName, ok2xx } from '../support/checks.ts';
import { derivedKeys, KEY_HEADER } from '../../core/keys.ts';
import type { Reply } from '../support/evidence.ts';
import type { Manifest } from '../../core/config.ts';
import { gateOf, ownedExperimentOf } from '../support/owners.ts';
import { workerMetric } from '../support/worker-metric.ts';
import { OPERATIONS, SPEC_OPERATIONS } from '../index.ts';
import { METRIC_TYPE, NAME_LENGTH_ORDINARY } from '../support/boundaries.ts';

const DIGITS = '0123456789';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const randomOf = (alphabet: string, length: number) => Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');

/**
 * Wrong keys of plausible shape, random, so that none reveals anything of the key: one of its length
 * drawn from its alphabet (the classes of characters it uses: digits, lower, upper case, and its
 * other characters), one with a random prefix of its prefix's shape (letters and a separator, as in
 * `cc_...`), one shorter and one longer.
 */
function wrongKeys(key: string): string[] {
  const classes = [DIGITS, LOWER, UPPER].filter((c) => [...key].some((ch) => c.includes(ch)));
  const others = [...new Set([...key].filter((ch) => !DIGITS.includes(ch) && !LOWER.includes(ch) && !UPPER.includes(ch)))];
  const alphabet = classes.join('') + others.join('') || LOWER;
  const keys = [randomOf(alphabet, key.length), randomOf(alphabet, Math.max(1, Math.floor(key.length / 2))), randomOf(alphabet, key.length + 16)];
  const prefix = /^([a-z]+|[A-Z]+)([_-])/.exec(key);
  if (prefix) {
    const letters = prefix[1] === prefix[1].toLowerCase() ? LOWER : UPPER;
    keys.push(randomOf(letters, prefix[1].length) + prefix[2] + randomOf(alphabet, Math.max(1, key.length - prefix[0].length)));
  }
  return keys.filter((k) => k !== key);
}

// One request per operation of the contract, valid in everything but the key, to what this file owns
// (support/owners.ts): its gate and experiment, and the worker's metric, which exists, so that an update
// served without the key would succeed and show it. Skip and unpause succeed only at a trigger's current
// phase, which is not known here: triggers.spec.ts, which owns the triggers, sends each of them without
// the key at every phase it tries, where a skip or unpause served without the key shows. Here they go
// to a trigger no target has, so that these probes never meet that file's writes (a request refused
// with a 409 there would read as "not the current phase").
// The overrides patch goes to an experiment the manifest gives the suite, else to one no target has: on
// a target that replaces overrides, one served when it should not be (or the key test's, sent with the
// key) would clear the owners'.
// The operations, their methods and paths are the contract's (OPERATIONS): an operation the suite has
// no body for (one a revision of the spec added) is sent with none, to an id no target has. A request
// without the right key must be refused whatever else it lacks, so every operation of the spec is probed.
function requests(m: Manifest, runId: string, metricId: string) {
  const missing = `cc_missing_${runId}`;
  const trigger = `cc_missing_trigger_${runId}`;
  const bodies: Record<string, { id?: string; data?: unknown }> = {
    addGateRules: { id: gateOf(m, 'auth'), data: { rules: [] } },
    disableGate: { id: gateOf(m, 'auth') },
    enableGate: { id: gateOf(m, 'auth') },
    createMetric: { data: { name: `${m.metricPrefix}${runId}_auth`, type: METRIC_TYPE, dryRun: true } },
    updateMetric: { id: metricId, data: { dryRun: true } },
    skipTriggerPhase: { id: trigger, data: { phaseID: 'not-a-phase' } },
    unpauseTrigger: { id: trigger, data: { phaseID: 'not-a-phase' } },
    patchExperimentOverrides: { id: ownedExperimentOf(m, 'auth') ?? missing, data: { overrides: [], userIDOverrides: [] } },
  };
  return Object.entries(OPERATIONS).map(([op, { method, path }]) => {
    const { id = missing, data } = bodies[op] ?? {};
    return [op, method, path.replace(/\{[^}]+\}/g, encodeURIComponent(id)), data] as const;
  });
}

/** The requests of requests(), to the worker's metric (created, with the key, by the first test of the worker that needs it). */
async function probes(t: T) {
  return requests(t.manifest, t.runId, (await workerMetric(t)).id);
}

/** Operations that take a request body, where a key could be looked for in the body: the contract's writes. */
const WRITES = new Set(Object.keys(OPERATIONS).filter((op) => OPERATIONS[op].method !== 'GET'));

test.describe('auth', () => {
  test('auth: every operation rejects a request without the key [spec 5]', checks('stated', 'auth.key.required'), async ({ t }) => {
    for (const [op, method, path, data] of await probes(t)) {
      const r = await t.raw(method, path, { data });
      expectNotAccepted(r, `${op} without SERVICE-API-KEY`);
    }
  });

  test(
    "auth: every operation rejects a wrong key of the key's shape, of another length, and an empty key [spec 5]",
    checks('stated', 'auth.key.required'),
    async ({ t }) => {
      // By default no key derived from the real one (one character short, case-changed, one added):
      // such a key is the real key to anyone who tries one guess or both cases, so a run against a
      // key that matters sends random keys of its shape instead, which reveal nothing. With
      // --auth-probes derived (a throwaway key) the derived ones are sent too: a server that compares
      // keys by prefix, over the length sent or ignoring case takes one of them. They are named here by
      // what they are, never by value; every exchange redacts the header whatever its value, and
      // core/keys.ts redacts (and the secret scan looks for) each of them. No whitespace-padded key: HTTP
      // strips a header value's surrounding whitespace (RFC 9110 5.5), so a padded key is the right key on the wire.
      const wrong = [
        ...wrongKeys(t.apiKey).map((key) => ({ key, what: `a wrong key (${key.length} characters)` })),
        { key: '', what: 'an empty key' },
        ...(t.authProbes === 'derived' ? derivedKeys(t.apiKey) : []),
      ];
      for (const [op, method, path, data] of await probes(t)) {
        for (const { key, what } of wrong) {
          const r = await t.raw(method, path, { data, headers: { 'SERVICE-API-KEY': key } });
          expectNotAccepted(r, `${op} with ${what}`);
        }
      }
    },
  );

  test(
    "auth: the key is accepted whatever the case of the header's name, on a read and a dryRun write [inferred, RFC 9110 5.1]",
    checks('inferred', 'auth.key.headerNameCase'),
    async ({ t }) => {
      // HTTP field names are case-insensitive, and HTTP/2 and HTTP/3 send them lower-cased: a client or
      // proxy in front of a real server may send the name in any case. Each request is sent first as the
      // spec spells the name, and its other spellings are judged only where that one is accepted (a
      // refusal of the request itself is other tests' to judge). The names go out as spelt (the suite's
      // client, on node:http, keeps their case: support/evidence.test.ts holds it on the wire).
      const requests: [string, string, string, unknown][] = [
        ['listReleasePipelines', 'GET', '/console/v1/release_pipelines?limit=1', undefined],
        [
          'createMetric',
          'POST',
          '/console/v1/metrics',
          { name: metricName(t.manifest.metricPrefix, t.runId, NAME_LENGTH_ORDINARY, '_hdrcase'), type: METRIC_TYPE, dryRun: true },
        ],
      ];
      for (const [op, method, path, data] of requests) {
        const canonical = await t.raw(method, path, { data, headers: { [KEY_HEADER]: t.apiKey } });
        if (!ok2xx(canonical)) {
          t.uncovered(
            'auth.key.headerNameCase',
            `not verifiable on ${op}: refused with the name as the spec spells it (HTTP ${canonical.status})`,
            'unverifiable',
          );
          continue;
        }
        for (const name of ['service-api-key', 'Service-Api-Key']) {
          const r = await t.raw(method, path, { data, headers: { [name]: t.apiKey } });
          await t.clause('auth.key.headerNameCase', async () =>
            expect(ok2xx(r), `${op} with the key in a header named ${name}: accepted as with ${KEY_HEADER}, got ${r.status}`).toBe(true),
          );
        }
      }
    },
  );

  test('auth: a key sent only in the query string is not accepted [spec 5]', checks('stated', 'auth.key.headerOnly.query'), async ({ t }) => {
    for (const [op, method, path, data] of await probes(t)) {
      const sep = path.includes('?') ? '&' : '?';
      for (const name of ['SERVICE-API-KEY', 'service-api-key', 'apiKey', 'api_key', 'key']) {
        const r = await t.raw(method, `${path}${sep}${name}=${encodeURIComponent(t.apiKey)}`, { data });
        expectNotAccepted(r, `${op} with the key in the query string as ${name}`);
      }
    }
  });

  test('auth: a key sent only in the request body is not accepted [spec 5]', checks('stated', 'auth.key.headerOnly.body'), async ({ t }) => {
    for (const [op, method, path, data] of await probes(t)) {
      if (!WRITES.has(op)) continue;
      for (const name of ['apiKey', 'api_key', 'SERVICE-API-KEY']) {
        const r = await t.raw(method, path, { data: { ...(data ?? {}), [name]: t.apiKey } });
        expectNotAccepted(r, `${op} with the key in the body as ${name}`);
      }
    }
  });

  test(
    'auth: a key sent only in Authorization (Bearer, Basic or bare) is not accepted [spec 5]',
    checks('stated', 'auth.key.headerOnly.authorization'),
    async ({ t }) => {
      // The schemes a server behind a gateway, or built on a framework's auth, commonly takes a key in:
      // a bearer token, the key as the user or the password of a Basic pair, and the bare value. Every
      // exchange redacts the Authorization header whatever it holds (core/keys.ts).
      const basic = (pair: string) => `Basic ${Buffer.from(pair).toString('base64')}`;
      const forms = [
        { value: `Bearer ${t.apiKey}`, what: 'Bearer' },
        { value: basic(`${t.apiKey}:`), what: 'Basic, as the user' },
        { value: basic(`:${t.apiKey}`), what: 'Basic, as the password' },
        { value: t.apiKey, what: 'bare' },
      ];
      for (const [op, method, path, data] of await probes(t))
        for (const { value, what } of forms) {
          const r = await t.raw(method, path, { data, headers: { Authorization: value } });
          expectNotAccepted(r, `${op} with the key in Authorization (${what})`);
        }
    },
  );

  test('auth: a key sent only in a cookie is not accepted [spec 5]', checks('stated', 'auth.key.headerOnly.cookie'), async ({ t }) => {
    // Cookie names a server may read a key or session from; every exchange redacts the Cookie header (core/keys.ts).
    for (const [op, method, path, data] of await probes(t))
      for (const name of ['SERVICE-API-KEY', 'apiKey', 'api_key']) {
        const r = await t.raw(method, path, { data, headers: { Cookie: `${name}=${encodeURIComponent(t.apiKey)}` } });
        expectNotAccepted(r, `${op} with the key in a cookie named ${name}`);
      }
  });

  test('auth: a rejected key gets a 4xx, never a 5xx [inferred]', checks('inferred', 'errors.badInput.4xx'), async ({ t }) => {
    for (const [op, method, path, data] of await probes(t)) {
      expectClientError(await t.raw(method, path, { data }), `${op} without key`);
      expectClientError(await t.raw(method, path, { data, headers: { 'SERVICE-API-KEY': 'wrong' } }), `${op} with a wrong key`);
    }
  });

  test('auth: the right key is accepted on a read under /console/v1/ [spec 5, 9]', checks('stated', 'auth.key.required', 'versioning.path'), async ({ t }) => {
    const { path, successStatus } = SPEC_OPERATIONS.listReleasePipelines;
    const r = await t.call('GET', path);
    // The status 4.5 shows, or any success where the spec shows none (4.0).
    if (successStatus === '200') expect(r.status, 'list pipelines with the right key').toBe(200);
    else expect(ok2xx(r), `list pipelines with the right key answered ${r.status}`).toBe(true);
  });

  test('auth: the key never comes back in a response body or header [inferred]', checks('inferred', 'auth.key.notEchoed'), async ({ t }) => {
    const leaks = (r: Reply) => r.text.includes(t.apiKey) || Object.values(r.headers).some((v) => v.includes(t.apiKey));
    for (const [op, method, path, data] of await probes(t)) {
      expect(leaks(await t.call(method, path, { data })), `${op} with the key: the key is in the response`).toBe(false);
      expect(
        leaks(await t.raw(method, `${path}?SERVICE-API-KEY=${encodeURIComponent(t.apiKey)}`, { data })),
        `${op} with the key in the query: the key is in the response`,
      ).toBe(false);
    }
  });
});
