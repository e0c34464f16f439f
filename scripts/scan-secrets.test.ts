// The scanner finds the key in every encoding and passes a clean tree; its CLI keeps its exit codes
// and never prints the key.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT } from '../core/config.ts';
import { deflateRawSync } from 'node:zlib';
import { keyForms, keyPrefix, nearMisses, swapCase } from '../core/keys.ts';
import { scan } from '../core/scan.ts';

const KEY = 'cc_test_0123456789abcdef0123456789+/=?&';

// Every tree is under one folder of this file's, removed at its end.
const TMP = mkdtempSync(join(tmpdir(), 'cc-scan-'));
after(() => rmSync(TMP, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(TMP, 'tree-'));
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

test('scan:secrets finds the near misses of the key (upper-, lower- and swapped-case, one short at either end, its first half) in every encoding', () => {
  const near = [KEY.toUpperCase(), KEY.toLowerCase(), swapCase(KEY), KEY.slice(0, -1), KEY.slice(1), KEY.slice(0, 20)];
  assert.equal(keyPrefix(KEY), KEY.slice(0, 20));
  // A short key's first half is no near miss: it may be little more than the vendor's prefix.
  assert.equal(keyPrefix('console-0123456789abcdef'), undefined);
  assert.deepEqual(nearMisses(KEY), [...new Set([KEY, ...near])], 'the key and its near misses, each once');
  for (const miss of near) {
    const hex = Buffer.from(miss).toString('hex');
    for (const form of [
      miss,
      encodeURIComponent(miss),
      Buffer.from(miss).toString('base64'),
      Buffer.from(`SERVICE-API-KEY: ${miss}`).toString('base64url'),
      hex,
      hex.toUpperCase(),
    ]) {
      const dir = tree({ 'junit.xml': `<failure>- SERVICE-API-KEY: ${form}</failure>` });
      assert.equal(scan([dir], KEY).found.length, 1, `${miss} as ${form}`);
    }
  }
});

/** A ZIP archive of `files` (deflated, or stored), as Playwright writes them; no CRC (the reader does not check it). */
function zip(files: Record<string, string | Buffer>, deflate = true): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.from(content);
    const packed = deflate ? deflateRawSync(data) : data;
    const n = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(deflate ? 8 : 0, 8);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(n.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(deflate ? 8 : 0, 10);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(n.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, n, packed);
    centrals.push(central, n);
    offset += 30 + n.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

test("scan:secrets looks inside ZIP archives: .zip files, the HTML report's embedded base64 ZIP, ZIPs in ZIPs", () => {
  const leak = JSON.stringify({ steps: [{ title: 'GET', subtitle: `127.0.0.1:1/console/v1/experiments?SERVICE-API-KEY=${KEY.slice(0, -1)}` }] });
  const clean = JSON.stringify({ steps: [{ title: 'GET', subtitle: '127.0.0.1:1/console/v1/experiments' }] });
  for (const deflate of [true, false]) {
    const archive = zip({ 'a.json': clean, 'report.json': leak }, deflate);
    const html = (z: Buffer) => `<script>window.playwrightReportBase64 = "data:application/zip;base64,${z.toString('base64')}";</script>`;
    const dir = tree({
      'blob-report/report-1.zip': '',
      'playwright-report/index.html': html(archive),
      'clean/index.html': html(zip({ 'a.json': clean }, deflate)),
    });
    writeFileSync(join(dir, 'blob-report/report-1.zip'), zip({ 'inner.zip': archive }, deflate));
    // Stored (not deflated), the key shows in the archive's own bytes, as it would in any file.
    const expected = deflate
      ? ['blob-report/report-1.zip!inner.zip!report.json', 'playwright-report/index.html!report.json']
      : ['blob-report/report-1.zip', 'playwright-report/index.html'];
    assert.deepEqual(
      scan([dir], KEY).found.sort(),
      expected.map((f) => join(dir, f)),
      `deflate ${deflate}`,
    );
  }
});

test('scan:secrets reports an archive entry it cannot read instead of passing it', () => {
  const archive = zip({ 'data.json': 'x' });
  archive.writeUInt16LE(12, 8); // the local header's method: bzip2
  archive.writeUInt16LE(12, archive.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 10);
  const dir = tree({});
  writeFileSync(join(dir, 'trace.zip'), archive);
  assert.deepEqual(scan([dir], KEY).found, [join(dir, 'trace.zip!data.json (cannot be read: compression method 12)')]);
});

test('scan:secrets passes a tree with only redacted keys and other keys', () => {
  const dir = tree({ 'report.json': '{"SERVICE-API-KEY": "<redacted>"}', 'other.txt': 'cc_test_fedcba9876543210' });
  assert.deepEqual(scan([dir], KEY).found, []);
});

const cli = (args: string[], env: Record<string, string> = {}) => {
  const { CONSOLE_API_KEY: _, ...rest } = process.env;
  return spawnSync(process.execPath, [resolve(ROOT, 'node_modules/tsx/dist/cli.mjs'), resolve(ROOT, 'scripts/scan-secrets.ts'), ...args], {
    env: { ...rest, ...env },
    encoding: 'utf8',
  });
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

test('scan:secrets CLI: with no DIR it scans the reports folder of CONSOLE_REPORTS_DIR, where the runs wrote', () => {
  const leaky = tree({ 'verify.json': `{"curl":"${encodeURIComponent(KEY)}"}` });
  const r = cli(['--key', KEY], { CONSOLE_REPORTS_DIR: leaky });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /verify\.json/);
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
