// A run's shape and limits as data in Artillery's config format: merged as Artillery merges
// --overrides and -e, and refused in one line for anything the run could not honour.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { ROOT } from '../../core/config.ts';
import { mergeConfig, readShape } from './shape.ts';

const dir = mkdtempSync(join(tmpdir(), 'cc-shape-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
};

test('overrides merge as Artillery merges them: objects key by key, lists replaced', () => {
  assert.deepEqual(mergeConfig({ config: { phases: [{ a: 1 }, { b: 2 }], ensure: { p95: 1 } } }, { config: { phases: [{ c: 3 }], ensure: { p99: 2 } } }), {
    config: { phases: [{ c: 3 }], ensure: { p95: 1, p99: 2 } },
  });
});

test('a YAML config with an environment and overrides: phases, ensure and plugins as given', () => {
  const f = file(
    'shape.yml',
    `config:
  phases:
    - { name: warm, duration: 10, arrivalRate: 5 }
    - { duration: 20, arrivalRate: 5, rampTo: 20, maxVusers: 50 }
  ensure:
    thresholds:
      - console.listExperiments.deep.p95: 300
  environments:
    ci:
      ensure:
        conditions:
          - expression: console.calibration.p99 < 100
            strict: false
      plugins:
        metrics-by-endpoint: {}
`,
  );
  const s = readShape({ configFile: f, environment: 'ci', overrides: '{"config":{"phases":[{"duration":5,"arrivalRate":2}]}}' });
  assert.deepEqual(s?.phases, [{ duration: 5, arrivalRate: 2 }]);
  assert.deepEqual(s?.ensure, {
    thresholds: [{ 'console.listExperiments.deep.p95': 300 }],
    conditions: [{ expression: 'console.calibration.p99 < 100', strict: false }],
  });
  assert.deepEqual(s?.plugins, { 'metrics-by-endpoint': {} });
  assert.match(s?.source ?? '', /shape\.yml \+ --overrides \(environment ci\)/);
  assert.equal(readShape({}), undefined, 'nothing given: the profile’s own shape');
  const publish = {
    'publish-metrics': [{ type: 'open-telemetry', metrics: { exporter: 'otlp-http', endpoint: 'http://127.0.0.1:9090/api/v1/otlp/v1/metrics' } }],
  };
  assert.deepEqual(readShape({ overrides: JSON.stringify({ config: { plugins: publish } }) })?.plugins, publish, 'publish-metrics takes a list of reporters');
  assert.equal(readShape({ overrides: '{"config":{"apdex":{"threshold":50}}}' })?.apdexMs, 50);
  assert.equal(readShape({ overrides: '{"config":{"plugins":{"apdex":{"threshold":80}}}}' })?.apdexMs, 80);
  assert.equal(readShape({ overrides: '{"config":{"plugins":{"apdex":{}}}}' })?.apdexMs, 500, "Artillery's default T");
  assert.equal(readShape({ overrides: '{"config":{"phases":[{"duration":1,"arrivalRate":1}]}}' })?.apdexMs, undefined);
});

const refused: [string, { configFile?: string; overrides?: string; environment?: string }, RegExp][] = [
  ['not JSON', { overrides: '{phases' }, /^--overrides is not JSON/],
  ['the target', { overrides: '{"config":{"target":"http://10.0.0.1"}}' }, /config\.target is set by the suite/],
  ['scenarios', { overrides: '{"scenarios":[]}' }, /scenarios is not read/],
  ['a phase without a rate', { overrides: '{"config":{"phases":[{"duration":5,"arrivalCount":10}]}}' }, /phases\[0\]\.arrivalCount is not supported/],
  ['a phase too long', { overrides: '{"config":{"phases":[{"duration":20000,"arrivalRate":1}]}}' }, /duration must be an integer from 1 to 14400/],
  [
    'a threshold not a number',
    { overrides: '{"config":{"ensure":{"thresholds":[{"console.a.p95":"300ms"}]}}}' },
    /thresholds\[0\] must be one metric and its limit/,
  ],
  ['an ensure key misspelt', { overrides: '{"config":{"ensure":{"treshold":[]}}}' }, /config\.ensure\.treshold is not one of/],
  ['an apdex without a threshold', { overrides: '{"config":{"apdex":{"t":5}}}' }, /config\.apdex must be \{threshold: ms\}/],
  ['a plugin given a list of numbers', { overrides: '{"config":{"plugins":{"apdex":[1,2]}}}' }, /config\.plugins\.apdex must be an object of its settings/],
  ['a plugin given the key', { overrides: '{"config":{"plugins":{"publish-metrics":{"apiKey":"{{ $env.CONSOLE_API_KEY }}"}}}}' }, /refers to the API key/],
  ['an environment not there', { overrides: '{"config":{"environments":{"ci":{}}}}', environment: 'prod' }, /no config\.environments\.prod \(there are: ci\)/],
  ['an environment alone', { environment: 'ci' }, /--environment needs --config/],
  ['no file', { configFile: join(dir, 'none.yml') }, /--config: no file/],
];
for (const [what, o, reason] of refused)
  test(`refused in one line: ${what}`, () => {
    assert.throws(
      () => readShape(o),
      (err: Error) => reason.test(err.message) && !err.message.includes('\n'),
    );
  });

test('every shipped shape reads, in each of its environments, and limits only endpoints its profile has', () => {
  const shapes = join(ROOT, 'load/shapes');
  const files = readdirSync(shapes).filter((f) => f.endsWith('.yml'));
  for (const script of ['paging', 'mutation'])
    for (const shape of ['smoke', 'baseline', 'stress', 'soak', 'spike']) assert.ok(files.includes(`${script}.${shape}.yml`), `${script}.${shape}.yml`);
  for (const f of files) {
    const script = f.split('.')[0];
    const endpoints = Object.keys((JSON.parse(readFileSync(join(ROOT, 'load/baselines', `${script}.json`), 'utf8')) as { endpoints: object }).endpoints);
    const raw = parseYaml(readFileSync(join(shapes, f), 'utf8')) as { config: { environments?: object } };
    for (const environment of [undefined, ...Object.keys(raw.config.environments ?? {})]) {
      const s = readShape({ configFile: join(shapes, f), environment });
      assert.ok(s?.phases?.length, `${f}: phases`);
      for (const t of (s?.ensure?.thresholds ?? []) as Record<string, number>[]) {
        const metric = Object.keys(t)[0];
        const endpoint = /^console\.(.+)\.p\d+$/.exec(metric)?.[1];
        assert.ok(endpoint && endpoints.includes(endpoint), `${f}: ${metric} names no endpoint of ${script}`);
      }
    }
  }
});
