#!/usr/bin/env node
// `npm run test:fast` (under tsx): the in-process unit tests (scripts/test-tiers.mjs) imported into this
// one process, so Node and the TypeScript loader start once instead of once per test file: about 7 s
// instead of about 20 on two cores. npm test still runs every test file in a process of its own
// (test:unit), so a test that passes only alone, or only with others, shows up as a difference.
// node:test sets a failing exit code itself when a test fails.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, tiers } from './test-tiers.mjs';

for (const file of tiers().inProcess) await import(pathToFileURL(join(ROOT, file)).href);
