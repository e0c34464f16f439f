// load/command/load.ts refuses what it must refuse before any load is sent: exit 3 with one line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../../core/config.ts';
import { TS_NODE_OPTIONS } from '../../core/package.ts';

function load(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, 'load/command/load.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  return { status: r.status, stderr: r.stderr.trim(), stdout: r.stdout };
}

test('a target that is not loopback is refused unless CONSOLE_ALLOW_REMOTE_LOAD=1', () => {
  const r = load(['paging'], { CONSOLE_BASE_URL: 'https://staging.example.com', CONSOLE_API_KEY: 'k_remote_secret' });
  assert.equal(r.status, 3);
  assert.equal(r.stderr, 'load: refusing to load staging.example.com: it is not loopback; set CONSOLE_ALLOW_REMOTE_LOAD=1 to allow it');
  assert.ok(!r.stderr.includes('k_remote_secret') && !r.stdout.includes('k_remote_secret'));
});

test('a bad profile, a bad script name and an unknown option are exit 3 with a reason', () => {
  assert.match(load(['paging', '--profile', 'huge'], {}).stderr, /^load: --profile must be smoke, baseline or stress, got "huge"$/);
  assert.equal(load(['paging', '--profile', 'huge'], {}).status, 3);
  assert.equal(load(['everything'], {}).status, 3);
  assert.equal(load(['paging', '--frobnicate'], {}).status, 3);
  assert.equal(load(['smoke', '--profile', 'stress'], {}).status, 3);
});

test('--help describes the commands and exit codes', () => {
  const r = load(['paging', '--help'], {});
  assert.equal(r.status, 0);
  assert.match(r.stdout, /npm run load:smoke/);
  assert.match(r.stdout, /Exit codes: 0 pass; 1 a check failed \(a contract matter\); 2 latency thresholds crossed/);
  assert.match(r.stdout, /--strict/);
  assert.match(r.stdout, /--variant NAME/);
});

test('--latency and --fault shape the reference server started for the run: refused with a target, a bad fault named', () => {
  const withTarget = load(['paging', '--latency', '40'], { CONSOLE_BASE_URL: 'http://127.0.0.1:9', CONSOLE_API_KEY: 'k_local_secret' });
  assert.equal(withTarget.status, 3);
  assert.equal(
    withTarget.stderr,
    'load: --latency, --fault and --variant shape the reference server started for the run; CONSOLE_BASE_URL is set, so none is started',
  );
  const badFault = load(['paging', '--fault', 'no-such-fault'], {});
  assert.equal(badFault.status, 3);
  assert.match(badFault.stderr, /^load: cannot start the reference server: .*unknown fault "no-such-fault"/);
  assert.equal(badFault.stderr.split('\n').length, 1);
});
