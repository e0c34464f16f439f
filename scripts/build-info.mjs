#!/usr/bin/env node
// npm pack's prepack and postpack: `write` records the commit the package is made from in
// build-info.json (`console-conformance --version` shows it; an installed package has no .git),
// `remove` deletes it again, so that a clone never holds a stale one. Plain .mjs: it runs before
// anything is installed.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FILE = join(dirname(fileURLToPath(import.meta.url)), '..', 'build-info.json');
const action = process.argv[2];

if (action === 'write') {
  const git = (...args) => spawnSync('git', args, { cwd: dirname(FILE), encoding: 'utf8' });
  const head = git('rev-parse', 'HEAD');
  const commit = head.status === 0 ? head.stdout.trim() : 'unknown';
  const dirty = head.status === 0 && git('status', '--porcelain', '--untracked-files=no').stdout.trim() !== '';
  writeFileSync(FILE, `${JSON.stringify({ commit: `${commit.slice(0, 12)}${dirty ? '+changes' : ''}`, packed: new Date().toISOString() }, null, 2)}\n`);
} else if (action === 'remove') {
  rmSync(FILE, { force: true });
} else {
  console.error('build-info: usage: node scripts/build-info.mjs write|remove');
  process.exit(3);
}
