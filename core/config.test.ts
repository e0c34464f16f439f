// Configuration is read once and checked: a bad value is a ConfigError (exit 3) naming the problem.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { anchorPaths, ConfigError, isLoopback, loadConfig, referenceKeyFromEnv, updateScreenshotsFromEnv } from './config.ts';

/** A manifest file in a temporary folder that is removed when test `t` ends. */
function manifestFile(t: TestContext, content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'cc-config-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'manifest.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

test('config: defaults start the reference with the reference manifest', () => {
  const c = loadConfig({});
  assert.equal(c.baseUrl, undefined);
  assert.equal(c.apiKey, undefined);
  assert.equal(c.strict, false);
  assert.equal(c.allowRemoteLoad, false);
  assert.ok(c.manifestPath.endsWith('fixtures/targets/reference.json'));
  assert.ok(c.manifest.gates.length > 0);
});

test('config: a base URL needs a key, and loses its trailing slash', () => {
  assert.throws(() => loadConfig({ CONSOLE_BASE_URL: 'https://staging.example.com' }), ConfigError);
  const c = loadConfig({ CONSOLE_BASE_URL: 'https://staging.example.com/', CONSOLE_API_KEY: 'k' });
  assert.equal(c.baseUrl, 'https://staging.example.com');
});

test('config: rejects a base URL that is not http(s)', () => {
  assert.throws(() => loadConfig({ CONSOLE_BASE_URL: 'not a url', CONSOLE_API_KEY: 'k' }), /not a URL/);
  assert.throws(() => loadConfig({ CONSOLE_BASE_URL: 'ftp://x', CONSOLE_API_KEY: 'k' }), /http or https/);
});

test('config: flags take 0 or 1 only', () => {
  assert.equal(loadConfig({ CONSOLE_STRICT: '1' }).strict, true);
  assert.equal(loadConfig({ CONSOLE_ALLOW_REMOTE_LOAD: '1' }).allowRemoteLoad, true);
  assert.throws(() => loadConfig({ CONSOLE_STRICT: 'yes' }), /CONSOLE_STRICT must be 0 or 1/);
});

test('config: the auth probes are random by default, derived when asked, nothing else', () => {
  assert.equal(loadConfig({}).authProbes, 'random');
  assert.equal(loadConfig({ CONSOLE_AUTH_PROBES: '' }).authProbes, 'random');
  assert.equal(loadConfig({ CONSOLE_AUTH_PROBES: 'random' }).authProbes, 'random');
  assert.equal(loadConfig({ CONSOLE_AUTH_PROBES: 'derived' }).authProbes, 'derived');
  assert.throws(
    () => loadConfig({ CONSOLE_AUTH_PROBES: 'all' }),
    (e: unknown) => e instanceof ConfigError && /CONSOLE_AUTH_PROBES must be random or derived, got "all"/.test(e.message),
  );
});

test('config: the deadline and the request timeout are positive seconds, 600 and 15 by default', () => {
  assert.equal(loadConfig({}).deadlineSeconds, 600);
  assert.equal(loadConfig({}).requestTimeoutMs, 15_000);
  assert.equal(loadConfig({ CONSOLE_DEADLINE: '90' }).deadlineSeconds, 90);
  assert.equal(loadConfig({ CONSOLE_REQUEST_TIMEOUT: '2.5' }).requestTimeoutMs, 2500);
  for (const bad of ['0', '-5', 'ten'])
    assert.throws(
      () => loadConfig({ CONSOLE_DEADLINE: bad }),
      (e: unknown) => e instanceof ConfigError && /CONSOLE_DEADLINE must be a positive number of seconds/.test(e.message),
    );
  assert.throws(() => loadConfig({ CONSOLE_REQUEST_TIMEOUT: '0' }), /CONSOLE_REQUEST_TIMEOUT must be a positive number of seconds/);
});

test('config: a bad manifest is a ConfigError naming the problem', (t) => {
  assert.throws(() => loadConfig({ CONSOLE_TARGET_MANIFEST: '/nonexistent/manifest.json' }), /cannot read target manifest/);
  assert.throws(() => loadConfig({ CONSOLE_TARGET_MANIFEST: manifestFile(t, '{not json') }), ConfigError);
  const good = { gates: ['g'], experiments: ['e'], triggers: [{ id: 't', releasePipelineID: 'p', phaseIDs: ['a'] }], metricPrefix: 'cc_' };
  assert.equal(loadConfig({ CONSOLE_TARGET_MANIFEST: manifestFile(t, good) }).manifest.metricPrefix, 'cc_');
  assert.throws(() => loadConfig({ CONSOLE_TARGET_MANIFEST: manifestFile(t, { ...good, gates: 'g' }) }), /"gates"/);
  assert.throws(() => loadConfig({ CONSOLE_TARGET_MANIFEST: manifestFile(t, { ...good, triggers: [{ id: 't' }] }) }), /triggers\[0\]/);
  assert.throws(() => loadConfig({ CONSOLE_TARGET_MANIFEST: manifestFile(t, { ...good, metricPrefix: 'bad prefix!' }) }), /metricPrefix/);
});

test('config: an experiment entry is an id or {"id", "overrides": "suite"}; only the latter are the suite\'s to overwrite', (t) => {
  const base = { gates: ['g'], triggers: [], metricPrefix: 'cc_' };
  const m = loadConfig({
    CONSOLE_TARGET_MANIFEST: manifestFile(t, { ...base, experiments: ['plain', { id: 'given', overrides: 'suite' }, { id: 'kept' }] }),
  }).manifest;
  assert.deepEqual(m.experiments, ['plain', 'given', 'kept']);
  assert.deepEqual(m.overridesOwned, ['given']);
  assert.deepEqual(loadConfig({ CONSOLE_TARGET_MANIFEST: manifestFile(t, { ...base, experiments: ['a', 'b'] }) }).manifest.overridesOwned, []);
  for (const bad of [{ overrides: 'suite' }, { id: 'x', overrides: 'merge' }, 3])
    assert.throws(
      () => loadConfig({ CONSOLE_TARGET_MANIFEST: manifestFile(t, { ...base, experiments: [bad] }) }),
      /experiments\[0\] must be an experiment id or/,
    );
});

test('config: the list budget is a whole number of pages, 12 by default', () => {
  assert.equal(loadConfig({}).listBudget, 12);
  assert.equal(loadConfig({ CONSOLE_LIST_BUDGET: '600' }).listBudget, 600);
  for (const bad of ['1', '2.5', 'many', '-3'])
    assert.throws(() => loadConfig({ CONSOLE_LIST_BUDGET: bad }), /CONSOLE_LIST_BUDGET must be a whole number of pages/);
});

test('config: loopback detection for load safety', () => {
  assert.equal(isLoopback('http://127.0.0.1:8080'), true);
  assert.equal(isLoopback('http://127.5.6.7'), true);
  assert.equal(isLoopback('http://localhost:1'), true);
  assert.equal(isLoopback('http://[::1]:9'), true);
  assert.equal(isLoopback('https://staging.example.com'), false);
  assert.equal(isLoopback('http://10.0.0.1'), false);
});

test('config: CONSOLE_TARGET_MANIFEST names the manifest; CONSOLE_FIXTURES, its old name, still works with a one-line note', (t) => {
  const good = manifestFile(t, { gates: ['g'], experiments: ['e'], triggers: [], metricPrefix: 'new_' });
  const notes: string[] = [];
  const note = (line: string) => notes.push(line);
  assert.equal(loadConfig({ CONSOLE_TARGET_MANIFEST: good }, note).manifestPath, good);
  assert.deepEqual(notes, [], 'the new name alone: no note');

  const env: NodeJS.ProcessEnv = { CONSOLE_FIXTURES: good };
  const config = loadConfig(env, note);
  assert.equal(config.manifestPath, good);
  assert.equal(config.manifest.metricPrefix, 'new_');
  assert.equal(notes.length, 1);
  assert.match(notes[0], /CONSOLE_FIXTURES is deprecated.*CONSOLE_TARGET_MANIFEST/);
  assert.doesNotMatch(notes[0], /\n/, 'one line');
  // Children started with this env read the new name, and say nothing again.
  assert.deepEqual(env, { CONSOLE_TARGET_MANIFEST: good });
  loadConfig(env, note);
  assert.equal(notes.length, 1);

  const other = manifestFile(t, { gates: ['g'], experiments: ['e'], triggers: [], metricPrefix: 'old_' });
  const both = loadConfig({ CONSOLE_TARGET_MANIFEST: good, CONSOLE_FIXTURES: other }, note);
  assert.equal(both.manifest.metricPrefix, 'new_', 'the new name wins');
  assert.match(notes[1], /CONSOLE_FIXTURES is ignored/);
});

test('config: the reference server key is CONSOLE_API_KEY, none when unset or empty', () => {
  assert.equal(referenceKeyFromEnv({ CONSOLE_API_KEY: 'k-1234' }), 'k-1234');
  assert.equal(referenceKeyFromEnv({ CONSOLE_API_KEY: '' }), undefined);
  assert.equal(referenceKeyFromEnv({}), undefined);
});

test('config: screenshots go to docs/ only with CONSOLE_UPDATE_SCREENSHOTS=1', () => {
  assert.equal(updateScreenshotsFromEnv({ CONSOLE_UPDATE_SCREENSHOTS: '1' }), true);
  for (const v of [undefined, '', '0', 'yes', 'true']) assert.equal(updateScreenshotsFromEnv({ CONSOLE_UPDATE_SCREENSHOTS: v }), false, String(v));
});

test('anchorPaths: the environment paths made absolute against the folder the command is run from, reports there by default', () => {
  const env: NodeJS.ProcessEnv = { CONSOLE_TARGET_MANIFEST: 'conformance/staging.json', CONSOLE_HISTORY: '/abs/history.sqlite', CONSOLE_BASE_URL: 'http://x' };
  anchorPaths(env, '/srv/my-server');
  assert.deepEqual(env, {
    CONSOLE_TARGET_MANIFEST: '/srv/my-server/conformance/staging.json',
    CONSOLE_HISTORY: '/abs/history.sqlite',
    CONSOLE_BASE_URL: 'http://x',
    CONSOLE_REPORTS_DIR: '/srv/my-server/reports',
  });
  const given: NodeJS.ProcessEnv = { CONSOLE_REPORTS_DIR: 'out/reports' };
  anchorPaths(given, '/srv/my-server');
  assert.equal(given.CONSOLE_REPORTS_DIR, '/srv/my-server/out/reports');
});

test("CONSOLE_WAIVE adds waivers for one run to the manifest's, each with a reason; CONSOLE_LIST_SEED is a whole number", () => {
  const c = loadConfig({ CONSOLE_WAIVE: 'experiments.list.filter.*=a list of 200,000 here\nfilters.oracle = dates not narrowed' });
  assert.deepEqual(c.manifest.waive?.slice(-2), [
    { clauses: 'experiments.list.filter.*', reason: 'a list of 200,000 here' },
    { clauses: 'filters.oracle', reason: 'dates not narrowed' },
  ]);
  assert.throws(() => loadConfig({ CONSOLE_WAIVE: 'experiments.list.filter.idType' }), /needs a reason/);
  assert.throws(() => loadConfig({ CONSOLE_WAIVE: 'a b=c' }), /clause id or a glob/);
  assert.equal(loadConfig({}).listSeed, 1);
  assert.equal(loadConfig({ CONSOLE_LIST_SEED: '42' }).listSeed, 42);
  assert.throws(() => loadConfig({ CONSOLE_LIST_SEED: '0' }), /CONSOLE_LIST_SEED/);
});
