// The scanner finds the key in every encoding and passes a clean tree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyForms, scan } from './scan-secrets.ts';

const KEY = 'cc_test_0123456789abcdef+/=?&';

test('scan:secrets finds the key raw, URL-encoded, base64 and hex, in nested files', () => {
  for (const form of keyForms(KEY)) {
    const dir = mkdtempSync(join(tmpdir(), 'cc-scan-'));
    mkdirSync(join(dir, 'a/b'), { recursive: true });
    writeFileSync(join(dir, 'a/clean.json'), '{"ok": true}');
    writeFileSync(join(dir, 'a/b/leak.txt'), `header: ${form}\n`);
    const r = scan([dir], KEY);
    assert.equal(r.scanned, 2);
    assert.deepEqual(r.found, [join(dir, 'a/b/leak.txt')], form);
  }
});

test('scan:secrets passes a tree with only redacted keys', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-scan-'));
  writeFileSync(join(dir, 'report.json'), '{"SERVICE-API-KEY": "<redacted>"}');
  assert.deepEqual(scan([dir], KEY).found, []);
});
