// Presence is not type: contracts/build.ts writes each success response in two forms (stated and
// listed), the suite fails on the stated form only and turns each listed field found absent into an
// inferred finding, and the reporter makes each finding its own result (a warning, or under --strict
// a failure that counts). Checked on real answers of the reference server and the committed schemas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { OPENAPI_PATH, generateSchemas } from './build.ts';
import { absentListed, OPERATIONS, responseErrors } from './support/validators.ts';
import { startReference } from '../core/reference.ts';

const KEY = 'test-key-presence-01';
const files = generateSchemas();
const json = (path: string) => JSON.parse(files.get(path)!);
const openapi = parse(readFileSync(OPENAPI_PATH, 'utf8'));

/** Real answers of the reference server (as a process: the suite never imports the server's code), which sends every listed field. */
async function answers() {
  const server = await startReference({ apiKey: KEY, scale: 12, stderr: 'ignore' });
  try {
    const send = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => {
      const r = await fetch(`${server.baseUrl}${url}`, {
        method,
        headers: { 'service-api-key': KEY, ...(payload ? { 'content-type': 'application/json' } : {}) },
        ...(payload ? { body: JSON.stringify(payload) } : {}),
      });
      const text = await r.text();
      assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${text.slice(0, 200)}`);
      return JSON.parse(text);
    };
    return {
      addGateRules: await send('POST', '/console/v1/gates/gate_cc_alpha/rules', { rules: [{ name: 'presence', passPercentage: 5, conditions: [] }] }),
      enableGate: await send('PUT', '/console/v1/gates/gate_cc_alpha/enable'),
      disableGate: await send('PUT', '/console/v1/gates/gate_cc_alpha/disable'),
      listExperiments: await send('GET', '/console/v1/experiments?limit=5'),
      createMetric: await send('POST', '/console/v1/metrics', { name: 'cc_presence_metric', type: 'sum' }),
    };
  } finally {
    await server.stop();
  }
}

const without = (body: any, drop: (copy: any) => void) => {
  const copy = structuredClone(body);
  drop(copy);
  return copy;
};

test('build: every operation has a stated and a listed response form, both in index.json', () => {
  const index = json('index.json');
  for (const [id, op] of Object.entries<any>(index.operations)) {
    assert.equal(op.response, `operations/${id}.response.json`);
    assert.equal(op.responseListed, `operations/${id}.response.listed.json`);
    assert.ok(files.has(op.response) && files.has(op.responseListed), id);
  }
});

test('build: the listed form requires exactly required plus x-listed, in every component it holds', () => {
  const components = openapi.components.schemas;
  let compared = 0;
  for (const [path, text] of files) {
    if (!path.endsWith('.response.json')) continue;
    const stated = JSON.parse(text);
    const listed = json(path.replace('.response.json', '.response.listed.json'));
    assert.deepEqual(Object.keys(listed.$defs ?? {}), Object.keys(stated.$defs ?? {}), path);
    for (const name of Object.keys(stated.$defs ?? {})) {
      const source = components[name];
      const want = [...(source.required ?? []), ...(source['x-listed'] ?? [])];
      assert.deepEqual(listed.$defs[name].required ?? [], want, `${path} ${name}`);
      assert.deepEqual(stated.$defs[name].required ?? [], source.required ?? [], `${path} ${name}`);
      assert.ok(!JSON.stringify(listed).includes('x-listed'), 'no x-* key reaches a schema');
      compared++;
    }
  }
  assert.ok(compared > 50, `components compared: ${compared}`);
});

test('build: the stated form requires only what the spec words state', () => {
  const defs = (op: string) => json(`operations/${op}.response.json`).$defs;
  // Tables list these; no words state them: presence inferred, so not required in the stated form.
  assert.equal(defs('listExperiments').Experiment.required, undefined);
  assert.equal(defs('createMetric').Metric.required, undefined);
  assert.equal(defs('skipTriggerPhase').Trigger.required, undefined);
  assert.equal(defs('enableGate').Gate.required, undefined);
  // Words that state presence: 2.1, 2.2 (enable/disable), 2.3 (add-rules rules, environments), 4.1, 4.2, 4.11.
  assert.deepEqual(defs('listExperiments').ExperimentListResponse.required, ['message', 'data', 'pagination']);
  assert.deepEqual(defs('createMetric').MetricResponse.required, ['message', 'data']);
  assert.deepEqual(defs('addGateRules').AddedGateRule.allOf[1].required, ['id', 'baseID', 'name', 'passPercentage', 'conditions', 'environments']);
  assert.deepEqual(defs('addGateRules').AddedGate.allOf[1].required, ['rules']);
  assert.deepEqual(defs('enableGate').GateRule.required, ['environments']);
  assert.deepEqual(defs('enableGate').UpdatedGate.allOf[1].required, ['owner', 'monitoringMetrics']);
  assert.deepEqual(defs('disableGate').DisabledGate.allOf[1].required, ['isEnabled']);
  assert.deepEqual(defs('patchExperimentOverrides').Override.required, ['type', 'id', 'groupID']);
  assert.deepEqual(defs('patchExperimentOverrides').UserIDOverride.required, ['groupID', 'ids']);
  // Marked optional, present on some records, or present only in other responses: not even listed.
  assert.ok(!json('operations/listExperiments.response.listed.json').$defs.Experiment.required.includes('owner'));
  assert.ok(!json('operations/addGateRules.response.listed.json').$defs.Gate.required.includes('owner'));
  assert.ok(!json('operations/patchExperimentOverrides.response.listed.json').$defs.Override.required.includes('environment'));
});

test('build: x-listed must name properties beside it and never repeat a required field', () => {
  const text = readFileSync(OPENAPI_PATH, 'utf8');
  const unknown = text.replace('x-listed: [ownerType, ownerName]', 'x-listed: [ownerType, ownerName, ownerColour]');
  assert.throws(() => generateSchemas(unknown), /x-listed names ownerColour, which is not a property beside it/);
  const twice = text.replace('required: [environments]\n      x-listed: [id,', 'required: [environments]\n      x-listed: [environments, id,');
  assert.notEqual(twice, text);
  assert.throws(() => generateSchemas(twice), /environments is both required \(stated\) and x-listed \(inferred\)/);
});

test('classification: the reference answers every listed field; an absent listed field is a finding, not a stated error', async () => {
  const a = await answers();
  for (const [op, body] of Object.entries(a)) {
    assert.deepEqual(responseErrors(op, body), [], op);
    assert.deepEqual(absentListed(op, body), [], op);
  }
  // Omit-when-empty style: one listed field left out of an object.
  const noDescription = without(a.enableGate, (b) => delete b.data.description);
  assert.deepEqual(responseErrors('enableGate', noDescription), []);
  assert.deepEqual(absentListed('enableGate', noDescription), [{ path: '/data/description', pattern: '/data/description', count: 1 }]);
  // In a list: one entry per field pattern, with how many items lack it and the first.
  const noLayer = without(a.listExperiments, (b) => {
    delete b.data[1].layerID;
    delete b.data[3].layerID;
    delete b.data[3].groups[0].size;
  });
  assert.deepEqual(responseErrors('listExperiments', noLayer), []);
  assert.deepEqual(absentListed('listExperiments', noLayer), [
    { path: '/data/1/layerID', pattern: '/data/*/layerID', count: 2 },
    { path: '/data/3/groups/0/size', pattern: '/data/*/groups/*/size', count: 1 },
  ]);
  // Nested listed fields of a metric, and an experiment's owner ("present on some records") is never a finding.
  assert.deepEqual(
    absentListed(
      'createMetric',
      without(a.createMetric, (b) => delete b.data.lineage.events),
    ).map((x) => x.pattern),
    ['/data/lineage/events'],
  );
  assert.deepEqual(
    absentListed(
      'listExperiments',
      without(a.listExperiments, (b) => b.data.forEach((e: any) => delete e.owner)),
    ),
    [],
  );
});

test('classification: a present field of the wrong type, and a field whose presence the spec states, are stated errors', async () => {
  const a = await answers();
  const stated = (op: string, body: unknown) => assert.notDeepEqual(responseErrors(op, body), [], `${op} must fail on the stated form`);
  stated(
    'enableGate',
    without(a.enableGate, (b) => (b.data.description = 5)),
  );
  stated(
    'listExperiments',
    without(a.listExperiments, (b) => (b.data[0].createdTime = '2026-01-01')),
  );
  stated(
    'listExperiments',
    without(a.listExperiments, (b) => delete b.pagination),
  );
  stated(
    'addGateRules',
    without(a.addGateRules, (b) => b.data.rules.forEach((r: any) => delete r.environments)),
  );
  stated(
    'addGateRules',
    without(a.addGateRules, (b) => b.data.rules.forEach((r: any) => delete r.baseID)),
  );
  stated(
    'addGateRules',
    without(a.addGateRules, (b) => delete b.data.rules),
  );
  stated(
    'enableGate',
    without(a.enableGate, (b) => delete b.data.owner),
  );
  stated(
    'disableGate',
    without(a.disableGate, (b) => delete b.data.monitoringMetrics),
  );
  stated(
    'disableGate',
    without(a.disableGate, (b) => delete b.data.isEnabled),
  );
  // The same owner left out of an add-rules answer is neither: 2.2 states it for enable/disable only.
  const noOwner = without(a.addGateRules, (b) => delete b.data.owner);
  assert.deepEqual([responseErrors('addGateRules', noOwner), absentListed('addGateRules', noOwner)], [[], []]);
  // Rule fields are stated for add-rules (2.3) but only listed in enable/disable answers, except environments.
  const rules = a.enableGate.data.rules.length > 0 ? a.enableGate : without(a.enableGate, (b) => (b.data.rules = a.addGateRules.data.rules));
  const noRuleName = without(rules, (b) => b.data.rules.forEach((r: any) => delete r.name));
  assert.deepEqual(responseErrors('enableGate', noRuleName), []);
  assert.deepEqual(
    absentListed('enableGate', noRuleName).map((x) => x.pattern),
    ['/data/rules/*/name'],
  );
  stated(
    'enableGate',
    without(rules, (b) => b.data.rules.forEach((r: any) => delete r.environments)),
  );
});

/** A Playwright test and its result as the reporter receives them, with runtime annotations. */
function ended(title: string, tag: string, clauses: string[], annotations: { type: string; description: string }[]) {
  const testCase = {
    title,
    tags: [tag],
    annotations: [...clauses.map((c) => ({ type: 'clause', description: c })), ...annotations],
    location: { file: join(process.cwd(), 'contracts/conformance/x.spec.ts') },
  };
  const result = { status: 'passed', duration: 5, annotations, attachments: [], errors: [], error: undefined };
  return [testCase, result] as const;
}

const checked = { type: 'checked', description: 'response.listedFieldsPresent' };
const finding = (message: string) => ({ type: 'finding', description: JSON.stringify({ clause: 'response.listedFieldsPresent', message, key: message }) });

/** The suite's reporter fed `ends`, writing into a temporary reports directory: conformance.json and junit.xml as written. */
async function report(strict: boolean, ends: (readonly [object, object])[]) {
  const dir = mkdtempSync(join(tmpdir(), 'cc-presence-'));
  const saved = { ...process.env };
  Object.assign(process.env, { CONSOLE_REPORTS_DIR: dir, CONSOLE_STRICT: strict ? '1' : '0' });
  delete process.env.CONSOLE_BASE_URL;
  delete process.env.CONSOLE_OBSERVATIONS_BASELINE;
  const log = console.log;
  try {
    const { default: Reporter } = await import('./support/reporter.ts');
    const reporter = new Reporter();
    for (const [t, r] of ends) reporter.onTestEnd(t as any, r as any);
    console.log = () => {};
    reporter.onEnd({ status: 'passed' } as any);
    return { json: JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')), junit: readFileSync(join(dir, 'junit.xml'), 'utf8') };
  } finally {
    console.log = log;
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    rmSync(dir, { recursive: true, force: true });
  }
}

test('reporter: each finding is its own inferred result: a warning by default, a failure that counts under --strict', async () => {
  const ends = [
    ended('gates: one', '@stated', ['gate.field.description'], [checked, finding('enableGate: listed field /data/description is absent')]),
    ended(
      'gates: two',
      '@stated',
      ['gate.field.description'],
      [checked, finding('enableGate: listed field /data/description is absent'), finding('enableGate: listed field /data/tags is absent')],
    ),
    ended('metrics: clean', '@stated', ['metric.field.name'], [checked]),
  ];
  const byDefault = await report(false, ends);
  const clause = (r: any) => r.json.clauses.find((c: any) => c.id === 'response.listedFieldsPresent');
  assert.equal(byDefault.json.summary.verdict, 'pass');
  assert.deepEqual(byDefault.json.summary.tests, { ...byDefault.json.summary.tests, total: 3, passed: 3, failed: 0, failedCounting: 0 });
  assert.deepEqual(byDefault.json.summary.findings, { total: 3, counting: 0 });
  assert.equal(clause(byDefault).status, 'warn');
  assert.equal(clause(byDefault).evidence.length, 3);
  const findings = byDefault.json.failures.filter((f: any) => f.finding);
  assert.deepEqual(
    findings.map((f: any) => [f.level, f.counts, f.clauses]),
    Array(3).fill(['inferred', false, ['response.listedFieldsPresent']]),
  );
  assert.equal(findings[0].test, 'gates: one :: enableGate: listed field /data/description is absent');
  // The tests' own clauses still pass: a finding is not a failed test.
  assert.equal(byDefault.json.clauses.find((c: any) => c.id === 'gate.field.description').status, 'pass');
  assert.match(byDefault.junit, /<testcase [^>]*name="gates: two :: enableGate: listed field \/data\/tags is absent"[^>]*>.*<system-out>WARN/);
  assert.doesNotMatch(byDefault.junit, /<failure/);

  const strict = await report(true, ends);
  assert.equal(strict.json.summary.verdict, 'fail');
  assert.deepEqual(strict.json.summary.findings, { total: 3, counting: 3 });
  assert.equal(strict.json.summary.tests.failedCounting, 0, 'no test failed: the findings fail the run');
  assert.equal(clause(strict).status, 'fail');
  assert.equal((strict.junit.match(/<failure type="inferred"/g) ?? []).length, 3);
});

test('reporter: a clause checked on the way with nothing found passes, even under --strict', async () => {
  const { json: r } = await report(true, [ended('metrics: clean', '@stated', ['metric.field.name'], [checked])]);
  const clause = r.clauses.find((c: any) => c.id === 'response.listedFieldsPresent');
  assert.equal(clause.status, 'pass');
  assert.deepEqual(clause.tests, ['metrics: clean']);
  assert.equal(r.summary.verdict, 'pass');
});

test('reporter: a note added while a test ran counts once, though Playwright lists it on the test and on its result', async () => {
  const observation = { type: 'observation', description: JSON.stringify({ clause: 'pagination.fields', aspect: 'listExperiments', value: ['page'] }) };
  const uncovered = {
    type: 'uncovered',
    description: JSON.stringify({ clause: 'experiments.list.filter.targetAppID', reason: 'no app ids', kind: 'unverifiable' }),
  };
  const { json: r } = await report(false, [ended('experiments: one', '@stated', ['experiments.list.filter.targetAppID'], [observation, uncovered])]);
  assert.equal(r.clauses.find((c: any) => c.id === 'pagination.fields').observations.length, 1);
  assert.deepEqual(r.clauses.find((c: any) => c.id === 'experiments.list.filter.targetAppID').uncovered, ['no app ids']);
});

test('catalogue: presence the spec words state is stated, presence a table only lists is one inferred clause', () => {
  const level = new Map(
    (parse(readFileSync(join(OPENAPI_PATH, '../clauses.yaml'), 'utf8')).clauses as { id: string; level: string }[]).map((c) => [c.id, c.level]),
  );
  assert.equal(level.get('response.listedFieldsPresent'), 'inferred');
  for (const id of [
    'envelope.successObject',
    'envelope.allEndpoints',
    'gates.addRules.rules.fields',
    'gates.addRules.environments.null',
    'gates.addRules.response.gate',
    'gates.enableDisable.owner',
    'gates.enableDisable.monitoringMetrics',
    'gates.disable.response.isEnabled',
    'overrides.patch.response.items',
  ]) {
    assert.equal(level.get(id), 'stated', id);
  }
  // The suite reads the presence form through index.json, as every consumer does.
  for (const op of Object.values(OPERATIONS)) assert.ok(files.has(op.responseListed), op.responseListed);
});
