// The GitHub workflows and the action of docs/ci.md, checked without GitHub: each workflow validates
// against SchemaStore's JSON Schema for GitHub workflows (scripts/ci/github-workflow.schema.json) and
// action.yml against its schema for action metadata (scripts/ci/github-action.schema.json; docs/ci.md
// says where both come from), and each does what docs/ci.md promises: the project's CI runs check and
// test on Node 24 (the line .nvmrc names) and 22 with the npm cache (no Go: the load engine is an npm
// package) and verify on Node 20; the gate is strict and fails on exit 1; the reusable workflows check
// out this suite, not their caller, and run it through the action; the action runs from its own
// checkout, passes the key only in the environment and uploads the reports whatever happened; the
// nightly restores the last observations for drift and keeps the history; the sharded run merges its
// shards; every npm script named exists; secrets only travel in the environment.
// scripts/ci/action.test.ts runs the action's own steps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { ROOT } from '../core/config.ts';

const DIR = join(ROOT, '.github/workflows');
// The schemas are draft-07 and use keywords Ajv's strict mode does not know; their own rules still apply.
const compile = (file: string) => new Ajv({ strict: false, allErrors: true }).compile(JSON.parse(readFileSync(join(ROOT, file), 'utf8')));
const validate = compile('scripts/ci/github-workflow.schema.json');
const validateAction = compile('scripts/ci/github-action.schema.json');
const scripts: Record<string, string> = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.yml') || f.endsWith('.yaml'))
  .sort();
const load = (f: string) => parse(readFileSync(join(DIR, f), 'utf8'));
const runs = (wf: any): string[] => Object.values<any>(wf.jobs).flatMap((j) => (j.steps ?? []).map((s: any) => String(s.run ?? '')));
const loadAction = () => parse(readFileSync(join(ROOT, 'action.yml'), 'utf8'));
const actionSteps = (): any[] => loadAction().runs.steps;
const actionScript = readFileSync(join(ROOT, 'scripts/ci/action.sh'), 'utf8');
/** The step of a workflow's job that runs the suite: the action at the root, checked out beside the caller's repository. */
const SUITE = './.console-conformance';
const suiteStep = (job: any): any => job.steps.find((s: any) => s.uses === SUITE);
/** `version` within an engines range of comparator sets (`>=20.19 <21 || >=22.12`): the forms package.json uses. */
const satisfies = (version: string, range: string): boolean => {
  const key = (v: string) => v.split('.').reduce((n, part, i) => n + Number(part) * 1000 ** (2 - i), 0);
  return range.split('||').some((set) =>
    set
      .trim()
      .split(/\s+/)
      .every((c) => {
        const [, op, v] = /^(>=|<=|>|<)?(\d+(?:\.\d+){0,2})$/.exec(c) ?? assert.fail(`engines: ${c}`);
        const d = key(version) - key(v);
        return op === '>=' ? d >= 0 : op === '<=' ? d <= 0 : op === '>' ? d > 0 : op === '<' ? d < 0 : d === 0;
      }),
  );
};

test('the five workflows of docs/ci.md exist, and the action at the repository root', () => {
  assert.deepEqual(files, ['ci.yml', 'conformance-sharded.yml', 'gate.yml', 'nightly.yml', 'proof.yml']);
  assert.ok(existsSync(join(ROOT, 'action.yml')));
});

test('every workflow validates against the GitHub workflow JSON schema', () => {
  for (const f of files) {
    const ok = validate(load(f));
    assert.ok(ok, `${f}: ${JSON.stringify(validate.errors?.slice(0, 5), null, 1)}`);
  }
});

test('action.yml validates against the GitHub action metadata JSON schema, and the check rejects a broken one', () => {
  assert.ok(validateAction(loadAction()), JSON.stringify(validateAction.errors?.slice(0, 5), null, 1));
  const noShell = loadAction();
  delete noShell.runs.steps[0].shell;
  assert.equal(validateAction(noShell), false, 'a composite run step needs its shell');
  const undescribed = loadAction();
  delete undescribed.inputs['api-key'].description;
  assert.equal(validateAction(undescribed), false, 'every input is described');
  const noValue = loadAction();
  delete noValue.outputs.verdict.value;
  assert.equal(validateAction(noValue), false, "a composite action's output maps a value");
});

test('the schema check itself rejects a broken workflow', () => {
  const broken = load('gate.yml');
  delete broken.jobs.gate['runs-on'];
  broken.jobs.gate.steps[0].uzes = broken.jobs.gate.steps[0].uses;
  assert.equal(validate(broken), false);
  assert.equal(validate({ name: 'no jobs', on: 'push' }), false);
});

test('every npm script a workflow or the action runs exists in package.json', () => {
  const texts = [
    ...files.flatMap((f) => runs(load(f)).map((line) => [f, line])),
    ...actionSteps().map((s) => ['action.yml', String(s.run ?? '')]),
    ['scripts/ci/action.sh', actionScript],
  ];
  let named = 0;
  for (const [where, text] of texts) {
    for (const m of text.matchAll(/(?:npm run (?:--silent )?)(\w[\w:-]*)/g)) {
      named++;
      assert.ok(scripts[m[1]], `${where} runs npm run ${m[1]}, which package.json does not define`);
    }
  }
  assert.ok(named >= 2, 'the check found the npm scripts it checks');
});

test('secrets reach commands only through the environment, never inside a run line', () => {
  for (const f of files) {
    for (const line of runs(load(f))) assert.doesNotMatch(line, /secrets\./, `${f}: a run line expands a secret into the script text`);
    assert.doesNotMatch(readFileSync(join(DIR, f), 'utf8'), /set -x/, `${f}: set -x would echo commands`);
  }
  assert.doesNotMatch(actionScript, /set -x|xtrace/, 'action.sh: tracing would echo the key');
});

test('action: the key is an environment variable of two steps (masked by the first), never an argument or script text', () => {
  const steps = actionSteps();
  // No input is expanded into a script: a value with quotes or $( ) would run as code, and the key would be in the script.
  for (const s of steps.filter((x) => x.run)) assert.doesNotMatch(s.run, /\$\{\{/, `step "${s.name}": an expression in its script`);
  const withKey = steps.filter((s) => JSON.stringify(s).includes('inputs.api-key'));
  assert.deepEqual(
    withKey.map((s) => s.name),
    ['Mask the API key', 'Run the suite'],
  );
  for (const s of withKey) assert.equal(s.env.CONSOLE_API_KEY, '${{ inputs.api-key }}');
  assert.equal(steps[0], withKey[0], 'the key is masked before anything else runs');
  assert.match(steps[0].run, /action\.sh" mask$/);
  assert.match(actionScript, /echo "::add-mask::\$\{CONSOLE_API_KEY\}"/);
});

test("action: the suite is the npm package of the action's own checkout, installed apart and run as its command", () => {
  const steps = actionSteps();
  const install = steps.findIndex((s) => s.id === 'install');
  const run = steps.findIndex((s) => s.id === 'run');
  assert.match(steps[install].run, /action\.sh" install$/);
  assert.ok(install < run, 'installed before it runs');
  assert.equal(steps[run].env.CC_COMMAND, '${{ steps.install.outputs.command }}');
  assert.match(actionScript, /npm pack --silent --pack-destination/);
  assert.match(actionScript, /cc_logged verify "\$\{args\[@\]\}"/);
  assert.match(actionScript, /"\$command" "\$name" "\$@"/);
  for (const s of steps.filter((x) => x.run)) assert.match(s.run, /^bash "\$GITHUB_ACTION_PATH\/scripts\/ci\/action\.sh" \w+$/, s.name);
  // Caches keyed on the action's files: hashFiles() sees only the caller's workspace.
  assert.doesNotMatch(JSON.stringify(loadAction()), /hashFiles/);
  // The load engine is an npm dependency: no Go, no k6 build, nothing cached beside npm's downloads.
  assert.doesNotMatch(JSON.stringify(steps), /setup-go|k6/);
});

test('action: inputs for the target, the key, the manifest, strict, read-only and skip-load; outputs the exit code, verdict and artifact', () => {
  const action = loadAction();
  for (const name of ['base-url', 'api-key', 'manifest', 'strict', 'read-only', 'skip-load', 'profile', 'node-version', 'artifact-name'])
    assert.ok(action.inputs[name], `input ${name}`);
  assert.deepEqual(Object.keys(action.outputs).sort(), ['artifact-id', 'artifact-name', 'artifact-url', 'exit-code', 'report-path', 'verdict']);
  // Each flag input becomes its verify option in action.sh: the option is added under the test of its input.
  const lines = actionScript.split('\n');
  for (const [flag, option] of [
    ['INPUT_STRICT', '--strict'],
    ['INPUT_READ_ONLY', '--read-only'],
    ['INPUT_SKIP_LOAD', '--skip-load'],
  ]) {
    const at = lines.findIndex((l) => l.includes(`if [[ "\${${flag}:-`) && l.includes('== "true" ]]; then'));
    assert.ok(at >= 0 && lines.slice(at, at + 3).some((l) => l.includes(`args+=(${option}`)), `${flag} -> ${option}`);
  }
  // Every input the script reads is given to the step that runs it.
  const run = actionSteps().find((s) => s.id === 'run');
  for (const m of actionScript.slice(actionScript.indexOf('candidate_run() {'), actionScript.indexOf('verdict() {')).matchAll(/\$\{((?:INPUT|CC)_\w+)/g))
    assert.ok(run.env[m[1]], `the run step does not set ${m[1]}`);
});

test('action: candidate mode has its inputs (URL, key, manifest, writes, freeze-open, latency, min-effect), its key masked and given only through the environment', () => {
  const action = loadAction();
  for (const name of [
    'candidate-url',
    'candidate-api-key',
    'candidate-manifest',
    'candidate-writes',
    'freeze-open',
    'candidate-latency',
    'candidate-min-effect',
  ])
    assert.ok(action.inputs[name], `input ${name}`);
  const steps = actionSteps();
  const withKey = steps.filter((s) => JSON.stringify(s).includes('inputs.candidate-api-key'));
  assert.deepEqual(
    withKey.map((s) => s.name),
    ['Mask the API key', 'Run the suite'],
  );
  for (const s of withKey) assert.equal(s.env.CONSOLE_CANDIDATE_API_KEY, '${{ inputs.candidate-api-key }}');
  assert.match(actionScript, /echo "::add-mask::\$\{CONSOLE_CANDIDATE_API_KEY\}"/);
  // Each candidate input becomes its option of console-conformance candidate.
  const lines = actionScript.split('\n');
  for (const [flag, option] of [
    ['INPUT_CANDIDATE_WRITES', '--writes'],
    ['INPUT_FREEZE_OPEN', '--freeze-open'],
    ['INPUT_CANDIDATE_LATENCY', '--latency'],
  ]) {
    const at = lines.findIndex((l) => l.includes(`if [[ "\${${flag}:-`) && l.includes('== "true" ]]; then'));
    assert.ok(at >= 0 && lines[at].includes(`args+=(${option}`), `${flag} -> ${option}`);
  }
  assert.match(actionScript, /cc_logged candidate "\$\{args\[@\]\}"/);
});

// scripts/ci/action.test.ts runs these steps: the run step exits 0 whatever the verdict, the last one with the suite's code.
test("action: the reports are uploaded whatever happened, then the step fails with the suite's exit code", () => {
  const steps = actionSteps();
  const names = steps.map((s) => s.id ?? s.name);
  const upload = steps.find((s) => String(s.uses).startsWith('actions/upload-artifact'));
  assert.match(upload.if, /^always\(\) && /);
  assert.equal(upload.with.path, '${{ steps.check.outputs.reports }}');
  assert.equal(upload.with.name, '${{ steps.check.outputs.artifact }}');
  assert.ok(names.indexOf('run') < names.indexOf('upload'));
  const last = steps.at(-1);
  assert.equal(last.if, 'always()');
  assert.match(last.run, /action\.sh" verdict$/);
  assert.equal(last.env.CC_EXIT_CODE, '${{ steps.run.outputs.exit-code }}');
  for (const s of steps.filter((x) => x.uses)) assert.match(s.uses, /^actions\/[\w-]+(\/[\w-]+)?@v\d+$/, "GitHub's own actions, by major version");
});

test('the reusable workflows check out this suite (their own repository and commit), not their caller, and run it through the action', () => {
  for (const f of ['gate.yml', 'nightly.yml']) {
    for (const [name, job] of Object.entries<any>(load(f).jobs)) {
      const steps: any[] = job.steps;
      const suite = steps.findIndex((s) => s.with?.path === SUITE.slice(2));
      assert.ok(suite >= 0, `${f} ${name}: no checkout of the suite`);
      assert.deepEqual(steps[suite].with, {
        repository: '${{ job.workflow_repository }}',
        ref: '${{ job.workflow_sha }}',
        path: SUITE.slice(2),
        'persist-credentials': false,
      });
      // The caller's own checkout (its manifest) comes first: a checkout into the root clears the workspace.
      const root = steps.findIndex((s) => String(s.uses).startsWith('actions/checkout') && !s.with?.path);
      assert.ok(root >= 0 && root < suite, `${f} ${name}: the caller's checkout before the suite's`);
      assert.ok(steps.indexOf(suiteStep(job)) > suite, `${f} ${name}: the suite runs through the action after its checkout`);
      assert.doesNotMatch(runs({ jobs: { job } }).join('\n'), /\bnpm\b/, `${f} ${name}: the suite runs through the action, not npm in the caller's checkout`);
    }
    assert.ok(load(f).on.workflow_call, `${f}: callable from another repository`);
  }
});

test("gate: strict, no load, and the action fails the job on exit 1; its verdict is the called workflow's output", () => {
  const wf = load('gate.yml');
  const step = suiteStep(wf.jobs.gate);
  assert.equal(step.with.strict, 'true');
  assert.equal(step.with['skip-load'], 'true');
  assert.equal(step.with['api-key'], '${{ secrets.CONSOLE_API_KEY }}');
  assert.match(step.with.manifest, /^\$\{\{ inputs\.manifest \|\| vars\.CONSOLE_TARGET_MANIFEST/);
  assert.match(step.with['read-only'], /inputs\.read-only/);
  assert.ok(wf.on.workflow_call, 'a release workflow must be able to call the gate');
  for (const out of ['exit-code', 'verdict', 'artifact-name']) {
    assert.equal(wf.on.workflow_call.outputs[out].value, `\${{ jobs.gate.outputs.${out} }}`);
    assert.equal(wf.jobs.gate.outputs[out], `\${{ steps.${step.id}.outputs.${out} }}`);
  }
});

test('nightly: scheduled, drift against the previous observations, reports uploaded whatever happened', () => {
  const wf = load('nightly.yml');
  assert.ok(wf.on.schedule?.[0]?.cron, 'scheduled');
  const steps: any[] = wf.jobs.verify.steps;
  const restore = steps.findIndex((s) => String(s.uses).startsWith('actions/cache/restore') && s.with?.path === 'previous-observations');
  const verify = steps.indexOf(suiteStep(wf.jobs.verify));
  assert.ok(restore >= 0 && restore < verify, 'observations restored before verify');
  assert.equal(
    steps[verify].with['observations-baseline'],
    "${{ hashFiles('previous-observations/observations.json') != '' && 'previous-observations/observations.json' || '' }}",
  );
  // The action uploads its reports folder whatever happened (checked above); here it is reports/.
  assert.equal(steps[verify].with['reports-dir'], 'reports');
  assert.match(steps[verify].with['artifact-name'], /^console-conformance-nightly-/);
  const keep = steps.findIndex((s) => /cp reports\/observations\.json previous-observations\//.test(String(s.run)));
  assert.ok(keep > verify && /^always\(\)/.test(steps[keep].if), "this night's observations kept even when verify fails");
  assert.ok(
    steps.some((s, i) => i > keep && String(s.uses).startsWith('actions/cache/save') && s.with?.path === 'previous-observations' && /always\(\)/.test(s.if)),
    'observations saved even when verify fails',
  );
});

test('nightly: each job restores the run history of its target before verify and saves it whatever happened', () => {
  const wf = load('nightly.yml');
  for (const [name, job] of Object.entries<any>(wf.jobs)) {
    const steps: any[] = job.steps;
    const restore = steps.findIndex((s) => String(s.uses).startsWith('actions/cache/restore') && s.with?.path === 'reports/history.sqlite');
    const verify = steps.indexOf(suiteStep(job));
    assert.equal(steps[verify].with.history, 'reports/history.sqlite', `${name}: the run adds to the history restored`);
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

test('ci: on pull requests and pushes, npm ci, check and test on Node 22 and 24 in Debian, with the npm cache and no Go; verify on Node 20', () => {
  const wf = load('ci.yml');
  assert.ok(wf.on.pull_request !== undefined && wf.on.push !== undefined, 'on pull_request and push');
  const job = wf.jobs.test;
  assert.deepEqual(job.strategy.matrix.node, [22, 24]);
  assert.equal(job.strategy['fail-fast'], false, 'one Node line failing does not hide the other');
  // Debian, as scripts/install-chromium expects (Debian's chromium); Node of the matrix line.
  assert.equal(job.container.image, 'node:${{ matrix.node }}-bookworm');
  const steps: any[] = job.steps;
  const at = (line: string) => steps.findIndex((s) => s.run === line);
  assert.ok(at('npm ci') >= 0 && at('npm ci') < at('npm run check') && at('npm run check') < at('npm test'), 'npm ci, then check, then test');
  const cache = (path: string) => steps.find((s) => String(s.uses).startsWith('actions/cache') && String(s.with?.path).includes(path));
  assert.match(cache('~/.npm')?.with.key, /hashFiles\('package-lock\.json'\)/);
  assert.equal(
    steps.findIndex((s) => String(s.uses).startsWith('actions/setup-go')),
    -1,
    'no Go: the load engine (Artillery) comes with npm ci',
  );
  for (const s of steps) assert.ok(s.uses || s.run, 'every step uses an action or runs a command');
  assert.doesNotMatch(JSON.stringify(wf), /secrets\./, 'the project CI needs no secret');
  // Node 20, which README says still works, keeps the main job as a smoke check on an install of its own.
  const smoke = wf.jobs['verify-node20'];
  assert.equal(smoke.container.image, 'node:20-bookworm');
  assert.deepEqual(
    smoke.steps.filter((s: any) => s.run).map((s: any) => s.run),
    ['npm ci', 'npm run verify'],
  );
  assert.match(readFileSync(join(ROOT, 'README.md'), 'utf8'), /\(20 still works\)/, 'the smoke check lasts while README says 20 works');
});

test('the Node CI runs is named once: .nvmrc, which .ci/run installs when older, devEngines and the newest line of ci.yml', () => {
  const nvmrc = readFileSync(join(ROOT, '.nvmrc'), 'utf8').trim();
  assert.match(nvmrc, /^\d+$/, '.nvmrc: a major line');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  assert.deepEqual(pkg.devEngines.runtime, { name: 'node', version: nvmrc, onFail: 'ignore' });
  // engines is what users may run: the CI line and 22, and 20.19 while README says 20 works.
  for (const v of [`${nvmrc}.0.0`, '22.12.0', '20.19.0']) assert.ok(satisfies(v, pkg.engines.node), `engines accepts ${v}`);
  assert.ok(!satisfies('20.18.0', pkg.engines.node) && !satisfies('21.7.0', pkg.engines.node), 'engines is a range');
  assert.equal(String(Math.max(...load('ci.yml').jobs.test.strategy.matrix.node)), nvmrc);
  const run = readFileSync(join(ROOT, '.ci/run'), 'utf8');
  assert.match(run, /want=\$\(tr -d ' v\\r\\n' < \.nvmrc\)/, '.ci/run reads the line from .nvmrc');
  assert.match(run, /npm install --prefix "\$tools" [^\n]*"node@\$want"/, 'and installs it from the npm registry');
  assert.match(run, /^npm ci\nnpm test\n$/m, "then README's two commands");
});

test('proof: weekly and by hand, the map must prove every stated clause, a sample of it is rerun, the map uploaded whatever happened', () => {
  const wf = load('proof.yml');
  assert.ok(wf.on.schedule?.length === 1 && 'workflow_dispatch' in wf.on);
  const steps: any[] = wf.jobs.proof.steps;
  const at = (line: string) => steps.findIndex((s) => s.run === line);
  assert.ok(at('npm ci') >= 0, 'npm ci');
  assert.ok(at('npm ci') < at('npm run clauses:proof -- --fail-unproved'), 'the map, failing on an unproved stated clause');
  assert.ok(at('npm run clauses:proof -- --fail-unproved') < at('npm run clauses:proof -- --verify --sample 30'), 'then a sample of it rerun');
  const upload = steps.find((s) => String(s.uses).startsWith('actions/upload-artifact'));
  assert.equal(upload?.if, 'always()');
  assert.equal(upload?.with.path, 'reports/clause-proof.json');
  assert.ok(wf.jobs.proof['timeout-minutes'] >= 60, 'room for a map of half an hour on two cores');
  assert.doesNotMatch(JSON.stringify(wf), /secrets\./, 'the proof map needs no secret');
});

test('Node lines: every job runs 22 or 24 (but the Node 20 smoke check); the project CI both, the nightly the suite on 22 against the reference alone', () => {
  const actionDefault = loadAction().inputs['node-version'].default;
  // The Node a job runs: setup-node's, the action's input (or its default), or the container's matrix line.
  const nodeOf = (job: any): string[] => {
    const image = /^node:(\d+)-/.exec(job.container?.image ?? '');
    if (image) return [image[1]];
    const setup = job.steps.find((s: any) => String(s.uses).startsWith('actions/setup-node'));
    if (setup) return [String(setup.with['node-version'])];
    const suite = suiteStep(job);
    if (suite) return [String(suite.with?.['node-version'] ?? actionDefault)];
    return (job.strategy?.matrix?.node ?? []).map(String);
  };
  const jobs = files.flatMap((f) => Object.entries<any>(load(f).jobs).map(([name, job]) => ({ f, name, job, nodes: nodeOf(job) })));
  for (const { f, name, nodes } of jobs) {
    assert.ok(nodes.length > 0, `${f} ${name}: which Node?`);
    for (const n of nodes) assert.ok(['22', '24'].includes(n) || `${f} ${name}` === 'ci.yml verify-node20', `${f} ${name}: node-version ${n}`);
  }
  assert.deepEqual(jobs.find((j) => j.f === 'ci.yml')?.nodes, ['22', '24']);
  const on22 = jobs.filter(({ f, nodes }) => f !== 'ci.yml' && nodes.includes('22'));
  assert.deepEqual(
    on22.map(({ f, name }) => `${f} ${name}`),
    ['nightly.yml reference-node22'],
  );
  const { job } = on22[0];
  // No target: without a base URL the suite starts its bundled reference server.
  assert.equal(job.environment, undefined);
  assert.doesNotMatch(JSON.stringify(job), /CONSOLE_BASE_URL|secrets\./);
  assert.equal(suiteStep(job).with['base-url'], undefined);
});
