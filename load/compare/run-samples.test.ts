import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { attachSamples, csvOutput, formatJson, samplesOf } from './run-samples.ts';
import { histogramCount, histogramOf } from './samples.ts';

test("csvOutput finds the file of the one CSV output among K6_OUT's outputs", () => {
  assert.equal(csvOutput('csv=/tmp/x/paging.csv.gz'), '/tmp/x/paging.csv.gz');
  assert.equal(csvOutput('csv=fileName=/tmp/z.csv'), '/tmp/z.csv');
  assert.equal(csvOutput('json=/tmp/b.json,csv=/tmp/a.csv'), '/tmp/a.csv');
  assert.equal(csvOutput('csv=timeFormat=unix_milli'), null);
  assert.equal(csvOutput('csv=/tmp/a.csv,csv=/tmp/b.csv'), null);
  assert.equal(csvOutput(undefined), null);
  assert.equal(csvOutput(''), null);
  assert.equal(csvOutput('json=/tmp/x.json'), null);
});

test('attachSamples adds the CSV histograms to summary.json and keeps every other field', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-run-samples-'));
  try {
    const summaryFile = join(dir, 'summary.json');
    writeFileSync(summaryFile, JSON.stringify({ format: 'console-conformance.load-summary/1', script: 'paging', endpoints: { a: { p50: 1 } } }));
    const header =
      'metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata';
    const row = (v: number, tag: string) => `http_req_duration,1763900000123,${v.toFixed(6)},,,,true,,GET,u,HTTP/1.1,default,,200,,,u,endpoint=${tag},`;
    writeFileSync(join(dir, 'k6.csv'), [header, row(10, 'a'), row(12, 'a'), row(2, 'calibration')].join('\n'));
    const samples = await attachSamples(summaryFile, join(dir, 'k6.csv'));
    const written = JSON.parse(readFileSync(summaryFile, 'utf8'));
    assert.equal(written.script, 'paging');
    assert.deepEqual(written.endpoints, { a: { p50: 1 } });
    assert.deepEqual(written.samples, samples);
    assert.equal(histogramCount(samplesOf(written, summaryFile)!.endpoints.a), 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

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
