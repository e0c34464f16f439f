// `npm run load:testrun` as a user runs it: the archive and the YAML are written, the key is in
// neither, and the archive runs as the operator runs it (segmented runners, paused, released
// together, the runner environment of the TestRun) against the reference, its runners' folders
// merging exactly. What it must refuse it refuses with one line.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../../core/config.ts';
import { startReference } from '../../core/reference.ts';
import { mergeSummaries } from '../compare/merge.ts';
import { readRunnerSummary } from '../compare/runner-files.ts';
import { runRunners } from '../runners/run.ts';
import { testRunProblems } from './testrun-fields.ts';

const work = mkdtempSync(join(tmpdir(), 'cc-testrun-'));
after(() => rmSync(work, { recursive: true, force: true }));

const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_') && !k.startsWith('K6_')));

function testrun(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'load/operator/cli.ts'), ...args], {
    cwd: ROOT,
    env: { ...base, CONSOLE_REPORTS_DIR: join(work, 'reports'), ...env },
  });
  const r = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (r.stdout += d));
  child.stderr.on('data', (d) => (r.stderr += d));
  return new Promise((done) => child.on('exit', (code) => done({ code, ...r })));
}

function k6Binary(): string {
  const which = spawnSync('bash', [join(ROOT, 'scripts/install-k6'), '--which'], { encoding: 'utf8' });
  const found = which.status === 0 ? which.stdout.trim() : join(ROOT, '.tools/bin/k6');
  assert.ok(existsSync(found), `k6 is needed for this test: npm run k6:install (looked for ${found})`);
  return found;
}

test('load:testrun writes an archive and a TestRun without the key, and the archive runs on the operator mechanism', { timeout: 240_000 }, async () => {
  const server = await startReference({ stderr: 'ignore' });
  try {
    const out = join(work, 'out');
    const r = await testrun(['--script', 'paging', '--profile', 'smoke', '--parallelism', '2', '--out', out], {
      CONSOLE_BASE_URL: server.baseUrl,
      CONSOLE_API_KEY: server.apiKey,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^load:testrun: console-paging-[a-z0-9]+: 2 runners of paging \(smoke\) against http:\/\/127\.0\.0\.1:\d+$/m);
    assert.match(r.stdout, /npm run baseline:compare -- --merge runs\/console-paging-[a-z0-9]+-\[0-9\]\* --history/);
    const archive = readdirSync(out).find((f) => f.endsWith('.tar'))!;
    const name = archive.replace(/\.tar$/, '');
    const docs = [
      ...parseAllDocuments(readFileSync(join(out, 'claim.yaml'), 'utf8')),
      ...parseAllDocuments(readFileSync(join(out, 'testrun.yaml'), 'utf8')),
    ].map((d) => d.toJS());
    assert.deepEqual(
      docs.map((d) => d.kind),
      ['PersistentVolumeClaim', 'Pod', 'TestRun'],
    );
    const run = docs[2];
    assert.deepEqual(testRunProblems(run), []);
    assert.equal(run.metadata.name, name);
    assert.equal(run.spec.parallelism, 2);
    // The key is nowhere the run wrote or printed: not in the archive, the YAML or the commands.
    for (const f of readdirSync(out)) assert.ok(!readFileSync(join(out, f), 'latin1').includes(server.apiKey), `${f} holds the key`);
    assert.ok(!r.stdout.includes(server.apiKey) && !r.stderr.includes(server.apiKey));
    // The archive keeps the profile's settings as -e values, and nothing else of this environment.
    const meta = JSON.parse(spawnSync('tar', ['-xOf', join(out, archive), 'metadata.json'], { encoding: 'utf8' }).stdout);
    assert.deepEqual(Object.keys(meta.env).sort(), ['LOAD_DATA_DIR', 'LOAD_PROFILE', 'LOAD_REQUEST_TIMEOUT', 'LOAD_STRICT', 'LOAD_TRIGGER_SKIPS']);

    // The archive as the TestRun's runner pods run it: the environment the YAML gives them (the key as
    // the Secret would give it), two segments, paused, released together.
    const podEnv = Object.fromEntries(
      (run.spec.runner.env as { name: string; value?: string }[]).filter((e) => e.value !== undefined).map((e) => [e.name, e.value as string]),
    );
    assert.equal(podEnv.CONSOLE_BASE_URL, server.baseUrl);
    const results = await runRunners({
      k6: k6Binary(),
      script: join(out, archive),
      runners: 2,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: work,
        ...podEnv,
        CONSOLE_API_KEY: server.apiKey,
        K6_OUT: `csv=${join(work, 'requests.csv.gz')}`,
        K6_WEB_DASHBOARD: 'false',
      },
      reportDir: join(work, 'pods'),
      cwd: work,
      args: ['--quiet', ...run.spec.arguments.split(' ')],
      stopWithinMs: 120_000,
      label: 'test',
      say: () => {},
    });
    assert.deepEqual(
      results.map((x) => x.exit),
      [0, 0],
    );
    // Copied out, each pod's folder holds summary.json and its CSV, as baseline:compare --merge reads them.
    for (const x of results) renameSync(join(work, `requests.runner-${x.index}.csv.gz`), join(x.dir, 'requests.csv.gz'));
    const merged = mergeSummaries(await Promise.all(results.map((x) => readRunnerSummary(x.dir))));
    assert.equal(merged.runners, 2);
    assert.equal((merged.merge as { percentiles: string }).percentiles, 'exact');
    assert.equal(merged.thresholdsOk, true);
    assert.deepEqual(merged.target, { kind: 'external', origin: server.baseUrl });
    assert.ok(merged.endpoints.calibration.count > 0 && merged.endpoints['listExperiments.deep'].count > 0);
  } finally {
    await server.stop();
  }
});

test('the archive refuses a target that is not loopback without CONSOLE_ALLOW_REMOTE_LOAD, in k6, before any request', { timeout: 120_000 }, async () => {
  const out = join(work, 'local');
  const r = await testrun(['--script', 'paging', '--profile', 'smoke', '--out', out], { CONSOLE_BASE_URL: 'http://127.0.0.1:9' });
  assert.equal(r.code, 0, r.stderr);
  const archive = readdirSync(out).find((f) => f.endsWith('.tar'))!;
  // A run of the archive pointed elsewhere, as a TestRun edited by hand would be: k6 stops in setup.
  const k6 = spawnSync(k6Binary(), ['run', '--quiet', '--no-color', join(out, archive)], {
    cwd: work,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      HOME: work,
      CONSOLE_BASE_URL: 'http://staging.invalid',
      CONSOLE_API_KEY: 'k_unused',
      LOAD_REPORT_DIR: work,
      K6_NO_USAGE_REPORT: 'true',
    },
  });
  assert.notEqual(k6.status, 0);
  assert.match(k6.stderr, /refusing to load staging\.invalid: it is not loopback; set CONSOLE_ALLOW_REMOTE_LOAD=1 to allow it/);
});

test('refused with one line and exit 3: no target, a remote target without CONSOLE_ALLOW_REMOTE_LOAD, a bad option', async () => {
  const none = await testrun(['--script', 'paging'], {});
  assert.deepEqual(
    [none.code, none.stderr],
    [3, 'load:testrun: CONSOLE_BASE_URL must name the target the runners load: a TestRun starts no reference server\n'],
  );
  const remote = await testrun(['--script', 'mutation'], { CONSOLE_BASE_URL: 'https://staging.example.com' });
  assert.deepEqual(
    [remote.code, remote.stderr],
    [3, 'load:testrun: refusing to write a load of staging.example.com: it is not loopback; set CONSOLE_ALLOW_REMOTE_LOAD=1 to allow it\n'],
  );
  const bad = await testrun(['--script', 'paging', '--parallelism', '0'], { CONSOLE_BASE_URL: 'http://127.0.0.1:9' });
  assert.deepEqual([bad.code, bad.stderr], [3, 'load:testrun: --parallelism must be an integer from 1 to 1000, got "0"\n']);
  const noScript = await testrun([], {});
  assert.deepEqual([noScript.code, noScript.stderr], [3, 'load:testrun: --script must be paging or mutation, got null\n']);
});
