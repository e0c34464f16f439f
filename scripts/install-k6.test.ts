// scripts/install-k6 through the real script: without Go it stops with one line and exit 3, and
// --which names the k6 to use or exits 3. The script is copied into an empty tree, so its
// .tools/bin is empty and the build path is really taken.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ROOT } from '../core/config.ts';

const tree = mkdtempSync(join(tmpdir(), 'install-k6-'));
mkdirSync(join(tree, 'scripts'));
copyFileSync(join(ROOT, 'scripts/install-k6'), join(tree, 'scripts/install-k6'));
after(() => rmSync(tree, { recursive: true, force: true }));

// A PATH with bash and coreutils but no Go (Go lives in /usr/local/go/bin on this machine and in CI).
const NO_GO_PATH = '/usr/bin:/bin';
// --norc and HOME=tree: bash started with a socket as stdin may read ~/.bashrc, which can put Go back on PATH.
const bash = (args: string[], env: Record<string, string>) =>
  spawnSync('/bin/bash', ['--norc', '--noprofile', ...args], { encoding: 'utf8', env: { PATH: NO_GO_PATH, HOME: tree, ...env } });
const run = (args: string[], env: Record<string, string>) => bash([join(tree, 'scripts/install-k6'), ...args], env);

test('without Go on PATH, install-k6 exits 3 with a one-line reason and builds nothing', () => {
  assert.equal(bash(['-c', 'command -v go'], {}).status, 1, 'the test PATH must not hold go');
  const r = run([], {});
  assert.equal(r.status, 3);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^install-k6: Go is not installed/);
  assert.equal(existsSync(join(tree, '.tools/bin/k6')), false);
});

test('--which exits 3 when no k6 is installed, and names K6_BIN when it is executable', () => {
  const none = run(['--which'], {});
  assert.equal(none.status, 3);
  assert.match(none.stderr, /k6 is not installed: run `npm run k6:install`/);
  const k6 = join(ROOT, '.tools/bin/k6');
  const given = run(['--which'], { K6_BIN: k6 });
  assert.equal(given.status, 0, given.stderr);
  assert.equal(given.stdout.trim(), k6);
  const bad = run(['--which'], { K6_BIN: join(tree, 'no-such-k6') });
  assert.equal(bad.status, 3);
});

test('an unknown argument is exit 3, --help is exit 0', () => {
  assert.equal(run(['--frobnicate'], {}).status, 3);
  const help = run(['--help'], {});
  assert.equal(help.status, 0);
  assert.match(help.stdout, /go install go\.k6\.io\/k6@v1\.8\.1/);
});
