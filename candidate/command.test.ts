// The command's interface: --help, a bad option, and a side that cannot be tested (exit 3, one line
// naming the side, a report that says so). The comparisons themselves: selftest.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import { readCandidate } from '../core/formats.ts';
import { TS_NODE_OPTIONS } from '../core/package.ts';

const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, 'candidate/command.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 120_000,
  });

test('--help names the options and exit codes; an unknown option is one line and exit 3', () => {
  const h = run(['--help']);
  assert.equal(h.status, 0);
  for (const o of [
    '--current',
    '--candidate',
    '--current-manifest',
    '--candidate-manifest',
    '--read-only',
    '--writes',
    '--freeze-open',
    '--latency',
    '--min-effect',
    'CONSOLE_CANDIDATE_API_KEY',
  ])
    assert.match(h.stdout, new RegExp(o));
  const bad = run(['--nope']);
  assert.equal(bad.status, 3);
  assert.equal(bad.stderr.trim().split('\n').length, 1);
  assert.match(bad.stderr, /^candidate: unknown option --nope/);
  const orphan = run(['--min-effect', '5']);
  assert.equal(orphan.status, 3);
  assert.match(orphan.stderr, /^candidate: --profile and --min-effect are options of --latency/);
});

test('a candidate URL without its key: one line naming the variable, exit 3', () => {
  const r = run(['--candidate', 'http://127.0.0.1:9'], { CONSOLE_CANDIDATE_API_KEY: '' });
  assert.equal(r.status, 3);
  assert.match(r.stderr, /CONSOLE_CANDIDATE_API_KEY must be set/);
});

test('a candidate that does not answer: exit 3 quickly, one line naming the candidate, candidate.json saying so', async () => {
  // A port that was free a moment ago: nothing listens there.
  const port = await new Promise<number>((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => done(p));
    });
  });
  const reports = mkdtempSync(join(tmpdir(), 'cc-candidate-cmd-'));
  try {
    const r = run(['--candidate', `http://127.0.0.1:${port}`], { CONSOLE_CANDIDATE_API_KEY: 'cc_not_a_real_key_0123456789', CONSOLE_REPORTS_DIR: reports });
    assert.equal(r.status, 3, r.stderr);
    const last = r.stderr.trim().split('\n').at(-1)!;
    assert.match(last, /^candidate: the candidate \(http:\/\/127\.0\.0\.1:\d+\) cannot be tested: /);
    const report = readCandidate(reports)!;
    assert.equal(report.verdict, 'not carried out');
    assert.equal(report.exitCode, 3);
    assert.match(report.reason!, /the candidate/);
    assert.doesNotMatch(JSON.stringify(report), /cc_not_a_real_key_0123456789/);
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
});
