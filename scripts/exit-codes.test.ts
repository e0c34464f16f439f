// The exit codes of docs/architecture.md, through the real commands: 3 with a one-line reason when
// a run cannot be carried out, 1 on a contract failure, 2 on a performance regression, 0 on a pass.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import { type ReferenceServer, startReference } from '../core/reference.ts';
import { TS_NODE_OPTIONS } from '../core/package.ts';

// Every run's reports folder is under one folder of this file's, removed at its end.
const TMP = mkdtempSync(join(tmpdir(), 'cc-exit-'));
after(() => rmSync(TMP, { recursive: true, force: true }));

function run(script: string, args: string[], env: Record<string, string>) {
  const reports = mkdtempSync(join(TMP, 'run-'));
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_')));
  const r = spawnSync(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, script), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...clean, CONSOLE_REPORTS_DIR: reports, ...env },
  });
  return Object.assign(r, { reports });
}

/** verify's own account of a run (reports/verify.json). */
const verifyJson = (reports: string) => JSON.parse(readFileSync(join(reports, 'verify.json'), 'utf8'));
const stage = (reports: string, name: string) => verifyJson(reports).stages.find((s: { name: string }) => s.name === name);
// One test of metrics: enough for a real conformance stage in a few seconds.
const ONE_METRIC_TEST = 'metrics: a created metric answers the spec message';

// The reference servers of the tests of one create (the clean one and the one whose create answers the
// wrong message), started once each and shared: a run leaves only its own uniquely named metric, which
// no later run reads.
const shared = new Map<string, Promise<ReferenceServer>>();
function sharedReference(faults: readonly string[]): Promise<ReferenceServer> {
  const key = faults.join(',');
  if (!shared.has(key)) shared.set(key, startReference({ faults: [...faults], stderr: 'ignore' }));
  return shared.get(key)!;
}
after(async () => {
  for (const server of shared.values()) await (await server).stop();
});

const oneLine = (stderr: string) =>
  stderr
    .trim()
    .split('\n')
    .filter((l) => !l.includes('npm warn')).length;

test('verify and conformance exit 3 with one line for a bad manifest', () => {
  for (const script of ['scripts/verify.ts', 'contracts/conformance.ts']) {
    const r = run(script, [], { CONSOLE_TARGET_MANIFEST: '/nonexistent/manifest.json' });
    assert.equal(r.status, 3, script);
    assert.match(r.stderr, /cannot read target manifest/);
    assert.equal(oneLine(r.stderr), 1, r.stderr);
  }
});

test('the manifest under its old name CONSOLE_FIXTURES: still read, with one line of deprecation note', () => {
  const r = run('contracts/conformance.ts', [], { CONSOLE_FIXTURES: '/nonexistent/manifest.json' });
  assert.equal(r.status, 3);
  assert.match(r.stderr, /cannot read target manifest \/nonexistent\/manifest.json/, 'the old name still names the manifest');
  const lines = r.stderr
    .trim()
    .split('\n')
    .filter((l) => !l.includes('npm warn'));
  assert.deepEqual(
    lines.map((l) => /CONSOLE_FIXTURES is deprecated/.test(l)),
    [true, false],
    r.stderr,
  );
});

test('conformance exits 3 when the target is unreachable, naming the error code, and for an unknown verify option', async () => {
  // A port that was free a moment ago: nothing listens there (fetch refuses some well-known ports outright).
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  const r = run('contracts/conformance.ts', [], { CONSOLE_BASE_URL: `http://127.0.0.1:${port}`, CONSOLE_API_KEY: 'k-unreachable' });
  assert.equal(r.status, 3);
  assert.match(r.stderr, /unreachable: ECONNREFUSED/);
  // A CI reading JUnit sees why, not nothing: one errored case with the reason.
  const junit = readFileSync(join(r.reports, 'junit.xml'), 'utf8');
  assert.match(junit, /<testsuites name="console-conformance" tests="1" failures="0" errors="1"/);
  assert.match(junit, /<error type="not carried out" message="target http:\/\/127\.0\.0\.1:\d+ unreachable: ECONNREFUSED">/);
  assert.ok(!existsSync(join(r.reports, 'conformance.json')));
  const v = run('scripts/verify.ts', ['--bogus'], {});
  assert.equal(v.status, 3);
  assert.match(v.stderr, /unknown option --bogus/);
});

test('verify against a target that is down: exit 3 at once, and verify.json and index.html say why', async () => {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  const v = run('scripts/verify.ts', ['--skip-load'], { CONSOLE_BASE_URL: `http://127.0.0.1:${port}`, CONSOLE_API_KEY: 'k-verify-down' });
  assert.equal(v.status, 3, v.stderr);
  const reason = `target http://127.0.0.1:${port} unreachable: ECONNREFUSED`;
  assert.equal(stage(v.reports, 'conformance').detail, `the suite could not be carried out: ${reason}`);
  const page = readFileSync(join(v.reports, 'index.html'), 'utf8');
  assert.ok(page.includes(`no conformance results: conformance: the suite could not be carried out: ${reason}`));
  assert.match(page, /The conformance suite did not run: the stages above say why\./);
  assert.match(v.stdout, /report {4}\S+index\.html/);
});

test('conformance exits 3 at the preflight for a redirect (not followed: the key goes nowhere else), a login page and a bad --deadline', async () => {
  // The other origin counts requests that reach it with the key; the front answers 301 under /r and a login page under /l.
  let keyElsewhere = 0;
  const other = createServer((req, res) => {
    if (req.headers['service-api-key'] !== undefined) keyElsewhere++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
  const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  const front = createServer((req, res) => {
    if (req.url!.startsWith('/r/')) res.writeHead(301, { location: `${otherUrl}${req.url}` }).end();
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<html><form action="/login"><input type="password"></form></html>');
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', () => r()));
  const frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  try {
    // Asynchronous: the servers live in this process.
    const runAsync = (env: Record<string, string>, args: string[] = []) => {
      const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_')));
      const child = spawn(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, 'contracts/conformance.ts'), ...args], {
        cwd: ROOT,
        env: { ...clean, CONSOLE_REPORTS_DIR: mkdtempSync(join(TMP, 'run-')), ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      return new Promise<{ status: number | null; stderr: string }>((done) => child.on('close', (status) => done({ status, stderr })));
    };
    const redirected = await runAsync({ CONSOLE_BASE_URL: `${frontUrl}/r`, CONSOLE_API_KEY: 'k-redirect-1234' });
    assert.equal(redirected.status, 3);
    assert.match(redirected.stderr, new RegExp(`redirects \\(HTTP 301 to ${otherUrl}/r/console/v1/release_pipelines\\?limit=1\\): not followed`));
    assert.equal(oneLine(redirected.stderr), 1, redirected.stderr);
    assert.equal(keyElsewhere, 0, 'the key was sent to no other origin');
    const login = await runAsync({ CONSOLE_BASE_URL: `${frontUrl}/l`, CONSOLE_API_KEY: 'k-login-1234' });
    assert.equal(login.status, 3);
    assert.match(login.stderr, /answered HTTP 200 text\/html, not the Console API/);
    assert.equal(oneLine(login.stderr), 1, login.stderr);
    const deadline = await runAsync({}, ['--deadline', 'soon']);
    assert.equal(deadline.status, 3);
    assert.match(deadline.stderr, /--deadline must be a positive number of seconds, got "soon"/);
  } finally {
    front.close();
    other.close();
  }
});

test('conformance exits 3 when the target rejects the key', async () => {
  const server = await sharedReference([]);
  const r = run('contracts/conformance.ts', [], { CONSOLE_BASE_URL: server.baseUrl, CONSOLE_API_KEY: 'not-the-key' });
  assert.equal(r.status, 3);
  assert.match(r.stderr, /rejected the key/);
});

test('conformance exits 1 on a stated violation and 0 on the clean server', async () => {
  for (const [faults, expected] of [
    [['wrong-message-metric-created'], 1],
    [[], 0],
  ] as const) {
    const server = await sharedReference(faults);
    // The test that checks a create's message: the exit code needs no more, and the rest of the
    // file would cost a Playwright run of twenty tests.
    const r = run('contracts/conformance.ts', ['contracts/conformance/metrics.spec.ts', '--grep', ONE_METRIC_TEST], {
      CONSOLE_BASE_URL: server.baseUrl,
      CONSOLE_API_KEY: server.apiKey,
    });
    assert.equal(r.status, expected, `faults ${faults.join(',') || 'none'}: ${r.stdout.slice(-500)}`);
  }
});

test('verify --help exits 0 and names every option', () => {
  const r = run('scripts/verify.ts', ['--help'], {});
  assert.equal(r.status, 0);
  for (const o of ['--strict', '--skip-load', '--profile', '--runners', '--baselines', '--observations-baseline', '--grep', '--deadline'])
    assert.ok(r.stdout.includes(o), o);
});

test('verify --skip-load exits 1 on a stated violation and 0 on the clean server, with load not run', async () => {
  for (const [faults, expected] of [
    [['wrong-message-metric-created'], 1],
    [[], 0],
  ] as const) {
    const server = await sharedReference(faults);
    const r = run('scripts/verify.ts', ['--skip-load', '--grep', ONE_METRIC_TEST], {
      CONSOLE_BASE_URL: server.baseUrl,
      CONSOLE_API_KEY: server.apiKey,
    });
    assert.equal(r.status, expected, `faults ${faults.join(',') || 'none'}: ${r.stdout.slice(-1500)}${r.stderr}`);
    assert.equal(stage(r.reports, 'load').status, 'skipped');
    assert.equal(stage(r.reports, 'conformance').exitCode, expected);
    assert.ok(!existsSync(join(r.reports, 'load')), 'no load output');
    assert.equal(verifyJson(r.reports).exitCode, expected);
    const page = readFileSync(join(r.reports, 'index.html'), 'utf8');
    assert.match(page, expected ? /class="verdict v-FAIL"/ : /class="verdict v-PASS"/);
    assert.ok(!page.includes(server.apiKey), 'the key is not on the page');
  }
});

test('verify exits 2 when the load regresses against a (deliberately strict) baseline, confirmed by a second run', async () => {
  // The committed smoke baseline of paging with ten times its throughput: a real run cannot keep up.
  const baselines = mkdtempSync(join(TMP, 'strict-baseline-'));
  const paging = JSON.parse(readFileSync(join(ROOT, 'load/baselines/paging.json'), 'utf8'));
  for (const [name, e] of Object.entries<{ rps: number }>(paging.endpoints)) if (name !== 'calibration') e.rps *= 10;
  const server = await startReference({ stderr: 'ignore' });
  // Verify runs against the server as a target: the baseline is one recorded for a target.
  paging.target = { kind: 'external', origin: new URL(server.baseUrl).origin };
  writeFileSync(join(baselines, 'paging.json'), JSON.stringify(paging));
  try {
    const r = run('scripts/verify.ts', ['--baselines', baselines, '--grep', ONE_METRIC_TEST], {
      CONSOLE_BASE_URL: server.baseUrl,
      CONSOLE_API_KEY: server.apiKey,
    });
    assert.equal(r.status, 2, r.stdout.slice(-3000) + r.stderr);
    const load = stage(r.reports, 'load');
    assert.equal(load.status, 'regression');
    assert.match(load.detail, /paging regression confirmed by a second run/);
    const compare = JSON.parse(readFileSync(join(r.reports, 'load/compare.json'), 'utf8'));
    assert.equal(compare.profiles.paging.verdict, 'regression');
    assert.equal(compare.profiles.mutation.verdict, 'no-baseline', 'no mutation baseline in the strict folder');
    assert.ok(compare.profiles.paging.endpoints.some((e: { reason: string }) => /throughput/.test(e.reason)));
    assert.match(r.stdout, /verdict   REGRESSION \(exit 2\)/);
    assert.match(readFileSync(join(r.reports, 'index.html'), 'utf8'), /class="verdict v-REGRESSION"/);
    assert.ok(existsSync(join(r.reports, 'load/paging/timeseries.json')), "throughput over time from the load run's request rows");
  } finally {
    await server.stop();
  }
});

test('verify passes a correct target slower than the reference: the committed baselines time the reference, so its load is not compared', async () => {
  // Every answer 3 ms away and the experiments list five times slower: legal, and far past the ratio
  // tolerances against the reference's own timings.
  const server = await startReference({ stderr: 'ignore', latency: '3', faults: ['slow:listExperiments:400'] });
  try {
    const r = run('scripts/verify.ts', ['--grep', ONE_METRIC_TEST], { CONSOLE_BASE_URL: server.baseUrl, CONSOLE_API_KEY: server.apiKey });
    assert.equal(r.status, 0, r.stdout.slice(-3000) + r.stderr);
    const compare = JSON.parse(readFileSync(join(r.reports, 'load/compare.json'), 'utf8'));
    for (const script of ['paging', 'mutation']) {
      assert.equal(compare.profiles[script].verdict, 'no-baseline');
      assert.match(compare.profiles[script].reason, /^the baseline was measured on the reference server, this run on http:\/\/127\.0\.0\.1:\d+: /);
    }
    const summary = JSON.parse(readFileSync(join(r.reports, 'load/paging/summary.json'), 'utf8'));
    assert.deepEqual(summary.target, { kind: 'external', origin: new URL(server.baseUrl).origin });
  } finally {
    await server.stop();
  }
});

test('verify: an inferred clause violated warns (exit 0) by default and fails (exit 1) under --strict', async () => {
  const server = await startReference({ faults: ['limit-ignored'], stderr: 'ignore' });
  try {
    for (const [args, expected, status] of [
      [[], 0, 'warn'],
      [['--strict'], 1, 'fail'],
    ] as const) {
      const r = run('scripts/verify.ts', [...args, '--skip-load', '--grep', 'experiments: pages are disjoint'], {
        CONSOLE_BASE_URL: server.baseUrl,
        CONSOLE_API_KEY: server.apiKey,
      });
      assert.equal(r.status, expected, `${args.join(' ') || 'default'}: ${r.stdout.slice(-1500)}${r.stderr}`);
      const clause = JSON.parse(readFileSync(join(r.reports, 'conformance.json'), 'utf8')).clauses.find((c: { id: string }) => c.id === 'paging.limit');
      assert.equal(clause.status, status);
      assert.equal(verifyJson(r.reports).options.strict, args.length > 0);
    }
  } finally {
    await server.stop();
  }
});

test('verify exits 3 with one line for a bad --profile, a missing --baselines folder or --observations-baseline file, or load against a remote target', () => {
  for (const [args, message, env] of [
    [
      [],
      /load against staging\.example\.com is refused \(not loopback\): set CONSOLE_ALLOW_REMOTE_LOAD=1, or run with --skip-load/,
      { CONSOLE_BASE_URL: 'https://staging.example.com', CONSOLE_API_KEY: 'k-remote-1234' },
    ],
    [['--profile', 'huge'], /--profile must be smoke, baseline or stress, got "huge"/],
    [['--baselines', '/nonexistent/baselines'], /--baselines: no folder/],
    [['--observations-baseline', '/nonexistent/observations.json'], /--observations-baseline: no file/],
    [['--deadline', '0'], /--deadline must be a positive number of seconds, got "0"/],
  ] as [string[], RegExp, Record<string, string>?][]) {
    const r = run('scripts/verify.ts', [...args], env ?? {});
    assert.equal(r.status, 3, args.join(' '));
    assert.match(r.stderr, message);
    assert.equal(oneLine(r.stderr), 1, r.stderr);
  }
});

test('verify stopped by SIGTERM exits 3 and leaves no reference server behind', async () => {
  const reports = mkdtempSync(join(TMP, 'run-'));
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_')));
  // One process (node --import tsx), so that the signal reaches verify itself, as a CI cancel does.
  const child = spawn(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, 'scripts/verify.ts'), '--skip-load'], {
    cwd: ROOT,
    env: { ...clean, CONSOLE_REPORTS_DIR: reports },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /conformance suite against (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', () => reject(new Error(`verify ended before the suite started: ${out}${stderr}`)));
  });
  const code = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  child.kill('SIGTERM');
  assert.equal(await code, 3);
  assert.match(stderr, /verify: stopped by SIGTERM/);
  await assert.rejects(fetch(`${url}/console/v1/release_pipelines`), 'the reference server is gone');
});
