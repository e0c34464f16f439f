import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './config.ts';
import { readYaml } from './yaml.ts';

test('readYaml: the project YAML files read back exactly as the yaml package parses them, copy or not', () => {
  for (const file of ['contracts/clauses.yaml', 'contracts/openapi.yaml']) {
    const expected = parse(readFileSync(join(ROOT, file), 'utf8'));
    // The first read may parse and write the copy; the second reads the copy.
    assert.deepEqual(readYaml(join(ROOT, file)), expected, file);
    assert.deepEqual(readYaml(join(ROOT, file)), expected, `${file}, from its copy`);
  }
});

test('readYaml: a file whose text changes is parsed again, never read from the old copy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-yaml-'));
  try {
    const path = join(dir, 'x.yaml');
    writeFileSync(path, `a: 1\nstamp: ${dir}\n`);
    assert.deepEqual(readYaml(path), { a: 1, stamp: dir });
    writeFileSync(path, `a: 2\nstamp: ${dir}\n`);
    assert.deepEqual(readYaml(path), { a: 2, stamp: dir });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
