// docs/environment.md is the one table of environment variables: it names exactly what core/config.ts
// and load/lib/env.ts (the two readers of the environment: the commands', and that of the processes the
// load runner starts) read, and README and docs/architecture.md point to it rather than keep tables of
// their own that drift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** Variable names in the first column of the markdown tables of `text`. */
const tabled = (text: string) => new Set([...text.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]));

test('docs/environment.md names every variable core/config.ts and load/lib/env.ts read, and no other', () => {
  const reads = new Set(['core/config.ts', 'load/lib/env.ts'].flatMap((f) => [...read(f).matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1])));
  assert.ok(reads.has('LOAD_PROFILE'), 'load/lib/env.ts is read');
  assert.ok(reads.has('CONSOLE_BASE_URL') && reads.size >= 10, [...reads].join(', '));
  assert.deepEqual([...tabled(read('docs/environment.md'))].sort(), [...reads].sort());
});

test('README and docs/architecture.md keep no environment table of their own: they point to docs/environment.md', () => {
  for (const file of ['README.md', 'docs/architecture.md']) {
    const text = read(file);
    assert.equal(tabled(text).size, 0, `${file} has a table of variables: ${[...tabled(text)].join(', ')}`);
    assert.match(text, /docs\/environment\.md|\(environment\.md\)/, `${file} points to the table`);
  }
});
