// The exit codes of the architecture guide, through the real commands: 3 with a one-line reason when
// a run cannot be carried out, 1 on a contract failure, 0 on a pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './lib/config.ts';
import { startReference } from './lib/reference-process.ts';

function run(script: string, args: string[], env: Record<string, string>) {
  const reports = mkdtempSync(join(tmpdir(), 'cc-exit-'));
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_')));
  return spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, script), ...args], {
    cwd: ROOT, encoding: 'utf8', env: { ...clean, CONSOLE_REPORTS_DIR: reports, ...env },
  });
}

const oneLine = (stderr: string) => stderr.trim().split('\n').filter((l) => !l.includes('npm warn')).length;

test('verify and conformance exit 3 with one line for a bad manifest', () => {
  for (const script of ['scripts/verify.ts', 'scripts/conformance.ts']) {
    const r = run(script, [], { CONSOLE_FIXTURES: '/nonexistent/manifest.json' });
    assert.equal(r.status, 3, script);
    assert.match(r.stderr, /cannot read target manifest/);
    assert.equal(oneLine(r.stderr), 1, r.stderr);
  }
});

test('conformance exits 3 when the target is unreachable, and for an unknown verify option', () => {
  const r = run('scripts/conformance.ts', [], { CONSOLE_BASE_URL: 'http://127.0.0.1:9', CONSOLE_API_KEY: 'k-unreachable' });
  assert.equal(r.status, 3);
  assert.match(r.stderr, /unreachable/);
  const v = run('scripts/verify.ts', ['--bogus'], {});
  assert.equal(v.status, 3);
  assert.match(v.stderr, /unknown option --bogus/);
});

test('conformance exits 3 when the target rejects the key', async () => {
  const server = await startReference({ stderr: 'ignore' });
  try {
    const r = run('scripts/conformance.ts', [], { CONSOLE_BASE_URL: server.baseUrl, CONSOLE_API_KEY: 'not-the-key' });
    assert.equal(r.status, 3);
    assert.match(r.stderr, /rejected the key/);
  } finally {
    await server.stop();
  }
});

test('conformance exits 1 on a stated violation and 0 on the clean server', async () => {
  for (const [faults, expected] of [[['wrong-message-metric-created'], 1], [[], 0]] as const) {
    const server = await startReference({ faults: [...faults], stderr: 'ignore' });
    try {
      const r = run('scripts/conformance.ts', ['contracts/conformance/metrics.spec.ts'], { CONSOLE_BASE_URL: server.baseUrl, CONSOLE_API_KEY: server.apiKey });
      assert.equal(r.status, expected, `faults ${faults.join(',') || 'none'}: ${r.stdout.slice(-500)}`);
    } finally {
      await server.stop();
    }
  }
});
