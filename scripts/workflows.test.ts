// The GitHub workflows of docs/ci.md, checked without GitHub: each file validates against SchemaStore's
// JSON Schema for GitHub workflows (scripts/ci/github-workflow.schema.json, see docs/ci.md for where it
// comes from), and each does what the README's "Use in CI" promises: the gate is strict and fails on
// exit 1, the nightly restores the last observations for drift and keeps the reports, the sharded
// run merges its shards, every npm script named exists, secrets only travel in the environment, and
// the jobs run the supported Node lines (24, and 22 against the reference server only).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { ROOT } from '../core/config.ts';

const DIR = join(ROOT, '.github/workflows');
const schema = JSON.parse(readFileSync(join(ROOT, 'scripts/ci/github-workflow.schema.json'), 'utf8'));
// The schema is draft-07 and uses keywords Ajv's strict mode does not know; its own rules still apply.
const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
const scripts: Record<string, string> = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.yml') || f.endsWith('.yaml'))
  .sort();
const load = (f: string) => parse(readFileSync(join(DIR, f), 'utf8'));
const runs = (wf: any): string[] => Object.values<any>(wf.jobs).flatMap((j) => (j.steps ?? []).map((s: any) => String(s.run ?? '')));

test('the three workflows of docs/ci.md exist', () => {
  assert.deepEqual(files, ['conformance-sharded.yml', 'gate.yml', 'nightly.yml']);
});

test('every workflow validates against the GitHub workflow JSON schema', () => {
  for (const f of files) {
    const ok = validate(load(f));
    assert.ok(ok, `${f}: ${JSON.stringify(validate.errors?.slice(0, 5), null, 1)}`);
  }
});

test('the schema check itself rejects a broken workflow', () => {
  const broken = load('gate.yml');
  delete broken.jobs.gate['runs-on'];
  broken.jobs.gate.steps[0].uzes = broken.jobs.gate.steps[0].uses;
  assert.equal(validate(broken), false);
  assert.equal(validate({ name: 'no jobs', on: 'push' }), false);
});

test('every npm script a workflow runs exists in package.json', () => {
  for (const f of files) {
    for (const line of runs(load(f))) {
      for (const m of line.matchAll(/npm run ([\w:-]+)/g)) assert.ok(scripts[m[1]], `${f} runs npm run ${m[1]}, which package.json does not define`);
    }
  }
});

test('secrets reach commands only through the environment, never inside a run line', () => {
  for (const f of files) {
    for (const line of runs(load(f))) assert.doesNotMatch(line, /secrets\./, `${f}: a run line expands a secret into the script text`);
    assert.doesNotMatch(readFileSync(join(DIR, f), 'utf8'), /set -x/, `${f}: set -x would echo commands`);
  }
});

test('gate: verify --strict, and exit 1 fails the job', () => {
  const wf = load('gate.yml');
  const script = runs(wf).join('\n');
  assert.match(script, /npm run verify -- --strict/);
  assert.match(script, /exit "\$code"/, "the job must end with verify's own exit code");
  assert.ok(wf.on.workflow_call, 'a release workflow must be able to call the gate');
});

test('nightly: scheduled, drift against the previous observations, reports uploaded whatever happened', () => {
  const wf = load('nightly.yml');
  assert.ok(wf.on.schedule?.[0]?.cron, 'scheduled');
  const steps: any[] = wf.jobs.verify.steps;
  const restore = steps.findIndex((s) => String(s.uses).startsWith('actions/cache/restore'));
  const verify = steps.findIndex((s) => /npm run verify/.test(String(s.run)));
  assert.ok(restore >= 0 && restore < verify, 'observations restored before verify');
  assert.match(steps[verify].run, /CONSOLE_OBSERVATIONS_BASELINE=previous-observations\/observations.json/);
  const upload = steps.find((s) => String(s.uses).startsWith('actions/upload-artifact'));
  assert.equal(upload?.if, 'always()');
  assert.equal(upload?.with?.path, 'reports/');
  assert.ok(
    steps.some((s) => String(s.uses).startsWith('actions/cache/save') && /always\(\)/.test(s.if)),
    'observations saved even when verify fails',
  );
});

test('nightly: each job restores the run history of its target before verify and saves it whatever happened', () => {
  const wf = load('nightly.yml');
  for (const [name, job] of Object.entries<any>(wf.jobs)) {
    const steps: any[] = job.steps;
    const restore = steps.findIndex((s) => String(s.uses).startsWith('actions/cache/restore') && s.with?.path === 'reports/history.sqlite');
    const verify = steps.findIndex((s) => /npm run verify/.test(String(s.run)));
    const save = steps.findIndex((s) => String(s.uses).startsWith('actions/cache/save') && s.with?.path === 'reports/history.sqlite');
    assert.ok(restore >= 0 && restore < verify, `${name}: history restored before verify`);
    assert.ok(save > verify && /always\(\)/.test(steps[save].if), `${name}: history saved after verify, even when it fails`);
    // Per target: the key names the job (its target), and a new entry each run (caches are immutable).
    const key: string = steps[save].with.key;
    assert.equal(steps[restore].with.key, key);
    assert.match(key, /github\.job/);
    assert.match(key, /github\.run_id \}\}$/);
    assert.ok(key.startsWith(steps[restore].with['restore-keys']), `${name}: restore-keys is the key without the run id`);
  }
});

test('sharded: every shard writes a blob, and the merge expects as many as the matrix has', () => {
  const wf = load('conformance-sharded.yml');
  const shards: number[] = wf.jobs.shard.strategy.matrix.shard;
  const shardRun = runs({ jobs: { shard: wf.jobs.shard } }).join('\n');
  assert.match(shardRun, new RegExp(`--shard \\$\\{\\{ matrix.shard \\}\\}/${shards.length}`));
  assert.match(shardRun, /--reporter=[\w,./]*blob/);
  assert.equal(wf.jobs.merge.if, 'always()');
  assert.match(runs({ jobs: { merge: wf.jobs.merge } }).join('\n'), new RegExp(`npm run conformance:merge -- --expect-shards ${shards.length} `));
});

test('Node lines: every job sets up 24, but for one nightly job on 22 that runs verify against the reference alone', () => {
  const jobs = files.flatMap((f) => Object.entries<any>(load(f).jobs).map(([name, job]) => ({ f, name, job })));
  const nodeOf = (job: any) => job.steps.find((s: any) => String(s.uses).startsWith('actions/setup-node'))?.with?.['node-version'];
  const on22 = jobs.filter(({ job }) => nodeOf(job) === 22);
  for (const { f, name, job } of jobs) assert.ok([22, 24].includes(nodeOf(job)), `${f} ${name}: node-version ${nodeOf(job)}`);
  assert.deepEqual(
    on22.map(({ f, name }) => `${f} ${name}`),
    ['nightly.yml reference-node22'],
  );
  const { job } = on22[0];
  // No target: without CONSOLE_BASE_URL the suite starts its bundled reference server.
  assert.equal(job.environment, undefined);
  assert.doesNotMatch(JSON.stringify(job), /CONSOLE_BASE_URL|secrets\./);
  assert.ok(job.steps.some((s: any) => /npm run verify/.test(String(s.run))));
});
