#!/usr/bin/env node
// `npm run test:unit` (under tsx, whose loader every test process inherits): every unit test, both
// tiers (scripts/test-tiers.mjs unitRun): the process tier a file each and the in-process tier as one
// more file (scripts/test-fast.mjs, all of its tests in one process), two files at a time, the longest
// first. Through node:test's run() and not `node --test FILES`, because the command line sorts the
// files by path and so would start the longest (scripts/exit-codes.test.ts) near the end.
// Exit 1 when a test (or a file) failed.
import { join } from 'node:path';
import { run } from 'node:test';
import { spec, tap } from 'node:test/reporters';
import { ROOT } from '../core/config.ts';
import { unitRun } from './test-tiers.mjs';

const stream = run({ files: unitRun().map((f) => join(ROOT, f)), concurrency: 2 });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
// As `node --test` reports: readable on a terminal, TAP in a log.
stream.compose(process.stdout.isTTY ? spec : tap).pipe(process.stdout);
