// scripts/install-chromium: Debian's chromium at /usr/bin/chromium for the report page test; exit 3
// with one line when it cannot be had; never a browser download.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';

const run = (...args: string[]) => spawnSync('bash', [join(ROOT, 'scripts/install-chromium'), ...args], { encoding: 'utf8' });

test('install-chromium --which prints /usr/bin/chromium when it is there, else exits 3 with one line', () => {
  const r = run('--which');
  if (existsSync('/usr/bin/chromium')) {
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), '/usr/bin/chromium');
  } else {
    assert.equal(r.status, 3);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /npm run chromium:install/);
  }
});

test('install-chromium: --help exits 0, an unknown argument exits 3 with one line', () => {
  const help = run('--help');
  assert.equal(help.status, 0);
  assert.match(help.stdout, /apt-get install -y chromium/);
  const bad = run('--bogus');
  assert.equal(bad.status, 3);
  assert.equal(bad.stderr.trim(), 'install-chromium: unknown argument --bogus (see --help)');
});

test('the report page test never lets Playwright download a browser', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  assert.match(pkg.scripts['report:test'], /PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1/);
  const config = readFileSync(join(ROOT, 'playwright.report.config.ts'), 'utf8');
  assert.match(config, /executablePath: '\/usr\/bin\/chromium'/);
  for (const flag of ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'])
    assert.ok(config.includes(`'${flag}'`), flag);
});
