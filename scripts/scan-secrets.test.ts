// The scanner finds the key in every encoding and passes a clean tree; its CLI keeps its exit codes
// and never prints the key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT } from './lib/config.ts';
import { keyForms, scan } from './scan-secrets.ts';

const KEY = 'cc_test_0123456789abcdef+/=?&';

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cc-scan-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

test('scan:secrets finds the key raw, URL-encoded, base64 and hex, in nested files', () => {
  for (const form of keyForms(KEY)) {
    const dir = tree({ 'a/clean.json': '{"ok": true}', 'a/b/leak.txt': `header: ${form}\n` });
    const r = scan([dir], KEY);
    assert.equal(r.scanned, 2);
    assert.deepEqual(r.found, [join(dir, 'a/b/leak.txt')], form);
  }
});

test('scan:secrets finds the key inside a larger base64 blob at every byte alignment', () => {
  // A trace or HAR file stores whole header lines base64-encoded, so the key starts mid-group.
  for (const prefix of ['SERVICE-API-KEY: ', 'SERVICE-API-KEY:  ', 'x-SERVICE-API-KEY: ']) {
    for (const encoding of ['base64', 'base64url'] as const) {
      const blob = Buffer.from(`${prefix}${KEY}\r\nhost: 127.0.0.1`).toString(encoding);
      const dir = tree({ 'trace.json': JSON.stringify({ headers: blob }) });
      assert.equal(scan([dir], KEY).found.length, 1, `${JSON.stringify(prefix)} ${encoding}`);
    }
  }
});

test('scan:secrets passes a tree with only redacted keys and other keys', () => {
  const dir = tree({ 'report.json': '{"SERVICE-API-KEY": "<redacted>"}', 'other.txt': 'cc_test_fedcba9876543210' });
  assert.deepEqual(scan([dir], KEY).found, []);
});

const cli = (args: string[], env: Record<string, string> = {}) => {
  const { CONSOLE_API_KEY: _, ...rest } = process.env;
  return spawnSync(process.execPath, [resolve(ROOT, 'node_modules/tsx/dist/cli.mjs'), resolve(ROOT, 'scripts/scan-secrets.ts'), ...args], { env: { ...rest, ...env }, encoding: 'utf8' });
};

test('scan:secrets CLI: exit 1 naming the file and never printing the key; 0 on a clean tree', () => {
  const leaky = tree({ 'load/summary.json': `{"key":"${Buffer.from(KEY).toString('base64')}"}` });
  const r = cli([leaky], { CONSOLE_API_KEY: KEY });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /load\/summary\.json/);
  for (const form of keyForms(KEY)) assert.ok(!(r.stdout + r.stderr).includes(form), 'the output holds a form of the key');
  const clean = tree({ 'index.html': '<p>ok</p>' });
  const ok = cli(['--key', KEY, clean]);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /1 files scanned/);
});

test('scan:secrets CLI: exit 3 with a one-line reason when there is no key, no folder or a bad option', () => {
  const dir = tree({ 'a.txt': 'a' });
  const cases: [string[], Record<string, string>, RegExp][] = [
    [[dir], {}, /no key/],
    [['--key', KEY, join(dir, 'missing')], {}, /nothing to scan/],
    [['--key-file', join(dir, 'missing.key'), dir], {}, /cannot read --key-file/],
    [['--key', 'short', dir], {}, /shorter than 8/],
    [['--bogus', dir], { CONSOLE_API_KEY: KEY }, /unknown option --bogus/],
  ];
  for (const [args, env, reason] of cases) {
    const r = cli(args, env);
    assert.equal(r.status, 3, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, reason);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
  const help = cli(['--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--key-file/);
});
