#!/usr/bin/env node
// `npm run test:unit` (under tsx, whose loader every test process inherits): every unit test, both
// tiers (scripts/test-tiers.mjs unitRun): the process tier a file each and the in-process tier as one
// more file (scripts/test-fast.mjs, all of its tests in one process), three files at a time, the longest
// first. Through node:test's run() and not `node --test FILES`, because the command line sorts the
// files by path and so would start the longest (scripts/exit-codes.test.ts) near the end.
// Exit 1 when a test (or a file) failed.
import { join } from 'node:path';
import { run } from 'node:test';
import { spec, tap } from 'node:test/reporters';
import { ROOT, unitRun } from './test-tiers.mjs';

// Three at a time on two cores: the process tier's files wait for a good part of their time (on
// Artillery's start, phases and period flushes, servers' starts, npm's install: a load test's CPU is
// 0.65 to 0.9 of its wall time), so two left a core idle (docs/measurements.md). The tests that judge
// timings are made to hold beside that load: their injected effects are far past what they must find.
const stream = run({ files: unitRun().map((f) => join(ROOT, f)), concurrency: 3 });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
// As `node --test` reports: readable on a terminal, TAP in a log.
stream.compose(process.stdout.isTTY ? spec : tap).pipe(process.stdout);
