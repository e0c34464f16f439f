// callPair (load/lib/http.ts) in paired mode, with fetch answering for both sides: a pair is recorded
// only when both answers are expected and of the same status class, each side gets its own request,
// and a request with no candidate counterpart is counted as unpaired.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TSX_LOADER } from '../../core/package.ts';
import { takeRecords, type Records } from './runtime.ts';

// env.ts reads the environment once, when first imported, and this test replaces fetch: it runs in a
// process of its own, started here with paired mode in its environment.
const CHILD = process.env.LOAD_CANDIDATE_BASE_URL === 'http://candidate.test';
if (!CHILD)
  test('callPair, in a process of its own in paired mode', () => {
    const r = spawnSync(process.execPath, ['--import', TSX_LOADER, '--test', '--test-reporter=tap', fileURLToPath(import.meta.url)], {
      encoding: 'utf8',
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT')),
        CONSOLE_BASE_URL: 'http://current.test',
        LOAD_CANDIDATE_BASE_URL: 'http://candidate.test',
        CONSOLE_CURRENT_API_KEY: 'current-key',
        CONSOLE_CANDIDATE_API_KEY: 'candidate-key',
      },
    });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /# pass 2/);
  });
const { callPair, SUCCESS_OR_REFUSED } = await import('./http.ts');

const sent: { url: string; key: string | null; body: unknown }[] = [];
/** Each side answers with the status its URL asks for (`/status/409`). */
if (CHILD)
  globalThis.fetch = (async (input: string | URL, init?: RequestInit) => {
    const url = String(input);
    const headers = new Headers(init?.headers);
    sent.push({ url, key: headers.get('SERVICE-API-KEY'), body: init?.body ? JSON.parse(String(init.body)) : undefined });
    const status = Number(/\/status\/(\d+)/.exec(url)?.[1] ?? 200);
    return new Response(JSON.stringify({ message: 'm', data: {} }), { status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;

const candidate = (r: Records, endpoint: string) => r.endpoints[endpoint]?.candidate;

if (CHILD)
  test('a 200 beside a 409, both expected, is no pair; a 200 beside a 201 is one', async () => {
    takeRecords();
    sent.length = 0;
    const opts = { endpoint: 'skipTriggerPhase', expected: SUCCESS_OR_REFUSED };
    const a = await callPair('PUT', { path: '/status/200', body: { phaseID: 'p_cur' } }, { path: '/status/409', body: { phaseID: 'p_cand' } }, opts);
    assert.equal(a.current.status, 200);
    assert.equal(a.candidate?.status, 409);
    let r = takeRecords();
    assert.equal(candidate(r, 'skipTriggerPhase')?.pairCurrent.length, 0);
    assert.equal(candidate(r, 'skipTriggerPhase')?.mismatched, 1);
    assert.equal(candidate(r, 'skipTriggerPhase')?.unexpected, 0, 'a 409 is an expected answer here');
    // Each side got its own request, with its own key.
    const byHost = Object.fromEntries(sent.map((s) => [new URL(s.url).host, s]));
    assert.deepEqual(byHost['current.test'].body, { phaseID: 'p_cur' });
    assert.deepEqual(byHost['candidate.test'].body, { phaseID: 'p_cand' });
    assert.equal(byHost['current.test'].key, 'current-key');
    assert.equal(byHost['candidate.test'].key, 'candidate-key');

    await callPair('PUT', { path: '/status/200' }, { path: '/status/201' }, opts);
    r = takeRecords();
    assert.equal(candidate(r, 'skipTriggerPhase')?.pairCurrent.length, 1);
    assert.equal(candidate(r, 'skipTriggerPhase')?.pairCandidate.length, 1);
  });

if (CHILD)
  test("the candidate's unexpected answer is counted, never paired; no counterpart is counted as unpaired", async () => {
    takeRecords();
    await callPair('POST', { path: '/status/200' }, { path: '/status/400' }, { endpoint: 'addGateRules' });
    let r = takeRecords();
    assert.equal(candidate(r, 'addGateRules')?.unexpected, 1);
    assert.equal(candidate(r, 'addGateRules')?.pairCurrent.length, 0);
    sent.length = 0;
    const a = await callPair('POST', { path: '/status/200' }, null, { endpoint: 'updateMetric' });
    r = takeRecords();
    assert.equal(a.candidate, undefined);
    assert.equal(sent.length, 1);
    assert.equal(r.endpoints.updateMetric.alone, 1);
    assert.equal(r.counters.load_paired_reqs ?? 0, 0);
  });
