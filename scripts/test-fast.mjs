#!/usr/bin/env node
// `npm run test:fast` (under tsx): the in-process unit tests (scripts/test-tiers.mjs) imported into this
// one process, so Node, the TypeScript loader and the contract's compiled schemas are made once instead
// of once per test file: about a third of the CPU time of a process per file (docs/measurements.md).
// `npm run check` runs it, and npm test's test:unit runs it as one file of the process tier, beside the
// others (scripts/test-tiers.mjs unitRun).
// node:test sets a failing exit code itself when a test fails.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../core/config.ts';
import { tiers } from './test-tiers.mjs';

for (const file of tiers().inProcess) await import(pathToFileURL(join(ROOT, file)).href);
