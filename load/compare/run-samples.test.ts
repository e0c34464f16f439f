import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { formatJson, samplesOf } from './run-samples.ts';
import { histogramCount, histogramOf } from './samples.ts';

test('samplesOf: none is null, a malformed field is an error naming the file', () => {
  assert.equal(samplesOf({}, 'b.json'), null);
  const good = { format: 'console-conformance.duration-histograms/1' as const, endpoints: { a: histogramOf([1, 2]) } };
  assert.deepEqual(samplesOf({ samples: good }, 'b.json'), good);
  assert.throws(
    () => samplesOf({ samples: { format: 'x', endpoints: {} } }, 'b.json'),
    /^Error: b\.json: "samples" is not console-conformance\.duration-histograms\/1/,
  );
  assert.throws(() => samplesOf({ samples: { ...good, endpoints: { a: { growth: 1.02, start: 0, counts: [-1] } } } }, 'b.json'), /b\.json/);
});

test('formatJson keeps arrays of numbers on one line and reads back to the same value', () => {
  const v = { a: { counts: [1, 0, 23, -4.5e-7], names: ['x', 'y'] }, empty: [], n: 1 };
  const text = formatJson(v);
  assert.deepEqual(JSON.parse(text), v);
  assert.match(text, /^ {4}"counts": \[1, 0, 23, -4\.5e-7\],$/m);
  assert.match(text, /^ {4}"names": \[\n {6}"x",$/m, 'other arrays as JSON.stringify writes them');
  assert.ok(text.endsWith('}\n'));
});
