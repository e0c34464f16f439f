#!/usr/bin/env node
// npm run lint | format | format:check: Biome, pinned, installed on first use into .tools/biome.
//
// Biome is not a devDependency: its package pulls a native binary per platform through optional
// dependencies, and a registry that serves only some platforms' builds leaves package-lock.json
// without the others, so `npm ci` refuses the lock everywhere. `npm install` into a folder of its
// own takes the one build this machine needs, and the lock stays
// free of it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = '2.6.8';
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PREFIX = join(ROOT, '.tools/biome');
const PACKAGE = join(PREFIX, 'node_modules/@biomejs/biome/package.json');
const BIN = join(PREFIX, 'node_modules/@biomejs/biome/bin/biome');

const args = process.argv.slice(2);
if (args.length === 0 || args[0] === '--help' || args[0] === '-h') {
  console.log(`usage: node scripts/biome.mjs BIOME-ARGS...

Runs Biome ${VERSION} (installed on first use into .tools/biome with npm) with the arguments given,
e.g. \`check --diagnostic-level=error\` (npm run lint) or \`format --write\` (npm run format).
exit codes: Biome's own; 3 when Biome cannot be installed`);
  process.exit(0);
}

const installed = () => existsSync(BIN) && existsSync(PACKAGE) && JSON.parse(readFileSync(PACKAGE, 'utf8')).version === VERSION;
if (!installed()) {
  console.error(`biome: installing @biomejs/biome@${VERSION} into .tools/biome (once)`);
  const npm = spawnSync('npm', ['install', '--prefix', PREFIX, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `@biomejs/biome@${VERSION}`], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (npm.status !== 0 || !installed()) {
    const reason = (npm.stderr ?? '').split('\n').find((l) => /error/i.test(l)) ?? `npm exit ${npm.status}`;
    console.error(`biome: cannot install @biomejs/biome@${VERSION}: ${reason.trim()}`);
    process.exit(3);
  }
}
const run = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: 'inherit' });
process.exit(run.status ?? 3);
