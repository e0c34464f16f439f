import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertNoKey } from './prepare.ts';

const KEY = 'console-3f9a1c7e5b2d4086a1e9c3b7d5f20486';

test("assertNoKey: a run's folder holding the key in any form the secret scan knows is refused, a clean one kept", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'no-key-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'runner-1'));
  writeFileSync(join(dir, 'summary.json'), '{"requests": 12}');
  assert.doesNotThrow(() => assertNoKey(dir, KEY));
  assert.doesNotThrow(() => assertNoKey(dir, ''), 'no key, nothing to look for');
  const forms: Record<string, string> = {
    raw: KEY,
    'URL-encoded': encodeURIComponent(`key=${KEY}&`),
    base64: Buffer.from(`{"SERVICE-API-KEY":"${KEY}"}`).toString('base64'),
    hex: Buffer.from(KEY).toString('hex'),
    'upper-cased': KEY.toUpperCase(),
  };
  for (const [form, text] of Object.entries(forms)) {
    const file = join(dir, 'runner-1', 'records.jsonl');
    writeFileSync(file, `{"note":"${text}"}\n`);
    assert.throws(
      () => assertNoKey(dir, KEY),
      (err: Error) => err.message === `${file} holds the API key: refusing to keep it`,
      form,
    );
    rmSync(file);
  }
});
