import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ROOT } from '../../core/config.ts';
import { startReference } from '../../core/reference.ts';
import { endpointTag, histogramCount, histogramOf, histogramQuantile, mergeHistograms, mergeRunSamples, readK6Samples, toSamples } from './samples.ts';
import { quantile, seededRandom } from './stats.ts';
import { splitCsvLine } from '../../core/csv.ts';

test('a histogram keeps every request and gives quantiles within 1% of the raw ones', () => {
  const random = seededRandom(3);
  const raw = Array.from({ length: 5000 }, () => 40 * Math.exp(0.4 * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())));
  const h = histogramOf(raw);
  assert.equal(histogramCount(h), 5000);
  for (const q of [0.05, 0.5, 0.95, 0.99]) {
    const exact = quantile(raw, q);
    assert.ok(Math.abs(histogramQuantile(h, q) / exact - 1) <= 0.0101, `q ${q}: ${histogramQuantile(h, q)} vs ${exact}`);
  }
  // Log-normal over a factor of about 10: some 120 buckets, a few hundred bytes of JSON for 5000 requests.
  assert.ok(h.counts.length < 160, `${h.counts.length} buckets`);
  assert.ok(JSON.stringify(h).length < 1200);
});

test('toSamples gives the durations back in ascending order, each within 1% of its request', () => {
  const h = histogramOf([10, 10.1, 3, 250]);
  assert.deepEqual(
    h.counts.reduce((a, b) => a + b, 0),
    4,
  );
  const back = Array.from(toSamples(h));
  for (const [i, v] of [3, 10, 10.1, 250].entries()) assert.ok(Math.abs(back[i] / v - 1) <= 0.01, `${back[i]} for ${v}`);
  assert.deepEqual(
    back,
    [...back].sort((a, b) => a - b),
  );
  assert.equal(toSamples(histogramOf([])).length, 0);
  assert.equal(histogramCount(histogramOf([0, -1])), 2, 'a zero duration counts, in the lowest bucket');
});

test('merging histograms adds the counts, whatever the overlap', () => {
  const a = histogramOf([1, 2, 3]);
  const b = histogramOf([2, 200]);
  const m = mergeHistograms(a, b);
  assert.equal(histogramCount(m), 5);
  assert.deepEqual(Array.from(toSamples(m)), Array.from(toSamples(histogramOf([1, 2, 3, 2, 200]))));
  assert.deepEqual(mergeHistograms(histogramOf([]), b), b);
  assert.throws(() => mergeHistograms(a, histogramOf([1], 1.05)), /growth/);
  const runs = mergeRunSamples([
    { format: 'console-conformance.duration-histograms/1', endpoints: { x: a } },
    { format: 'console-conformance.duration-histograms/1', endpoints: { x: b, y: b } },
  ]);
  assert.equal(histogramCount(runs.endpoints.x), 5);
  assert.equal(histogramCount(runs.endpoints.y), 2);
});

test('CSV fields and the endpoint tag are read as k6 writes them', () => {
  assert.deepEqual(splitCsvLine('a,"b,c",,"f""g"'), ['a', 'b,c', '', 'f"g']);
  assert.equal(endpointTag('endpoint=listExperiments.page1'), 'listExperiments.page1');
  assert.equal(endpointTag('kind=x&endpoint=a%2Fb&y=z'), 'a/b');
  assert.equal(endpointTag('kind=x'), null);
  assert.equal(endpointTag(''), null);
});

// k6's CSV output as .tools/bin/k6 writes it with K6_CSV_TIME_FORMAT=unix_milli: this header, values
// with six decimals, custom tags URL-encoded in extra_tags (the real-k6 test below reads such a file).
const HEADER =
  'metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata';
const row = (metric: string, value: number, expected: string, status: string, tags: string) =>
  `${metric},1763900000123,${value.toFixed(6)},,,,${expected},,GET,http://127.0.0.1:1/x,HTTP/1.1,default,,${status},,,http://127.0.0.1:1/x,${tags},`;

test('a written k6 CSV: only http_req_duration of expected, tagged requests, gzipped or not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-samples-'));
  try {
    const lines = [
      HEADER,
      row('http_reqs', 1, 'true', '200', 'endpoint=a'),
      row('http_req_duration', 10, 'true', '200', 'endpoint=a'),
      row('http_req_duration', 20, 'true', '200', 'endpoint=a'),
      row('http_req_waiting', 19, 'true', '200', 'endpoint=a'),
      row('http_req_duration', 2, 'true', '401', 'endpoint=calibration'),
      row('http_req_duration', 999, 'false', '500', 'endpoint=a'),
      row('http_req_duration', 5, 'true', '200', ''),
    ];
    writeFileSync(join(dir, 'k6.csv'), `${lines.join('\n')}\n`);
    writeFileSync(join(dir, 'k6.csv.gz'), gzipSync(`${lines.join('\n')}\n`));
    for (const name of ['k6.csv', 'k6.csv.gz']) {
      const s = await readK6Samples(join(dir, name));
      assert.deepEqual(Object.keys(s.endpoints), ['a', 'calibration']);
      assert.equal(histogramCount(s.endpoints.a), 2, 'the failed request and the other metrics are left out');
      assert.ok(Math.abs(histogramQuantile(s.endpoints.a, 1) / 20 - 1) <= 0.01);
      assert.equal(histogramCount(s.endpoints.calibration), 1);
    }
    writeFileSync(join(dir, 'other.csv'), 'time,value\n1,2\n');
    await assert.rejects(readK6Samples(join(dir, 'other.csv')), /not a k6 CSV output/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The k6 scripts/install-k6 resolves (K6_BIN, else .tools/bin/k6). */
function k6Binary(): string {
  const which = spawnSync('bash', [join(ROOT, 'scripts/install-k6'), '--which'], { encoding: 'utf8' });
  const found = which.status === 0 ? which.stdout.trim() : join(ROOT, '.tools/bin/k6');
  assert.ok(existsSync(found), `k6 is needed for this test: npm run k6:install (looked for ${found})`);
  return found;
}

const K6_SCRIPT = `
import http from 'k6/http';
export const options = { vus: 1, iterations: 15 };
export default function () {
  const url = __ENV.BASE + '/console/v1/release_pipelines?limit=1';
  http.get(url, { tags: { endpoint: 'calibration' }, responseCallback: http.expectedStatuses(401) });
  http.get(url, { headers: { 'SERVICE-API-KEY': __ENV.KEY }, tags: { endpoint: 'listReleasePipelines' } });
  http.get(__ENV.BASE + '/console/v1/no_such_thing', { headers: { 'SERVICE-API-KEY': __ENV.KEY }, tags: { endpoint: 'missing' } });
  http.get(url, { headers: { 'SERVICE-API-KEY': __ENV.KEY } });
}
`;

test('a real k6 run against the reference server: one histogram per tagged endpoint, every expected request counted', async () => {
  const k6 = k6Binary();
  const dir = mkdtempSync(join(tmpdir(), 'cc-samples-k6-'));
  const server = await startReference({ stderr: 'ignore' });
  try {
    writeFileSync(join(dir, 'tiny.js'), K6_SCRIPT);
    const csv = join(dir, 'out.csv.gz');
    const code = await new Promise<number | null>((done) => {
      const child = spawn(k6, ['run', '--quiet', '--no-usage-report', join(dir, 'tiny.js')], {
        cwd: dir,
        stdio: 'ignore',
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          BASE: server.baseUrl,
          KEY: server.apiKey,
          K6_OUT: `csv=${csv}`,
          K6_CSV_TIME_FORMAT: 'unix_milli',
          K6_NO_USAGE_REPORT: 'true',
        },
      });
      child.once('exit', done);
    });
    assert.equal(code, 0);
    const s = await readK6Samples(csv);
    // The 404s are not expected responses; the untagged request is not part of any endpoint.
    assert.deepEqual(Object.keys(s.endpoints), ['calibration', 'listReleasePipelines']);
    assert.equal(histogramCount(s.endpoints.calibration), 15);
    assert.equal(histogramCount(s.endpoints.listReleasePipelines), 15);
    const p50 = histogramQuantile(s.endpoints.listReleasePipelines, 0.5);
    assert.ok(p50 > 0 && p50 < 5000, `p50 ${p50} ms`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
