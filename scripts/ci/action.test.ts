// The action (action.yml) as GitHub runs it, minus GitHub's own actions: its run steps in order, with
// the environment, working directory, `if:` and outputs action.yml declares, against a real server.
// GitHub's steps (setup-node, the caches, upload-artifact) and the install of the packed suite are left
// out: this worktree is the package with its dependencies, and an upload needs GitHub; scripts/workflows.test.ts checks how they are
// wired. A caller's workspace is a temporary folder holding only the server repository's manifest.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { ROOT } from '../../core/config.ts';
import { keyForms } from '../../core/keys.ts';
import { randomApiKey, startReference } from '../../core/reference.ts';

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'cc-action-'));
after(() => rmSync(work, { recursive: true, force: true }));

interface Step {
  name: string;
  /** null: not run (a GitHub action, the install, or skipped by its `if:`). */
  code: number | null;
}
interface Run {
  steps: Step[];
  outputs: Record<string, string>;
  /** Everything the steps printed, in order: the job's log. */
  log: string;
  /** What the steps wrote to GITHUB_OUTPUT and GITHUB_STEP_SUMMARY. */
  outputFiles: string;
  summary: string;
  workspace: string;
  temp: string;
}

/** `${{ a || b || 'literal' }}` over the contexts action.yml uses; anything else is a test error, not a guess. */
function evaluate(text: string, ctx: Record<string, any>): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, expr: string) => {
    for (const term of expr.split('||').map((t) => t.trim())) {
      const literal = /^'(.*)'$/.exec(term);
      if (literal) return literal[1];
      if (!/^[a-z_]+(\.[\w-]+)+$/.test(term)) throw new Error(`the test does not evaluate ${JSON.stringify(term)}`);
      const value: unknown = term.split('.').reduce<any>((o, k) => o?.[k], ctx);
      if (value !== undefined && value !== null && value !== '') return String(value);
    }
    return '';
  });
}

function bash(script: string, env: Record<string, string>, cwd: string): Promise<{ code: number; out: string }> {
  // As GitHub runs a `shell: bash` step.
  const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((done) => child.on('close', (code) => done({ code: code ?? 1, out })));
}

/** Runs the action with these inputs in a fresh workspace (`files`: the caller's repository). */
async function runAction(inputs: Record<string, string>, files: Record<string, string> = {}): Promise<Run> {
  const dir = mkdtempSync(join(work, 'run-'));
  const workspace = join(dir, 'workspace');
  const temp = join(dir, 'temp');
  for (const [name, from] of Object.entries(files)) {
    mkdirSync(join(workspace, name, '..'), { recursive: true });
    copyFileSync(from, join(workspace, name));
  }
  mkdirSync(workspace, { recursive: true });
  mkdirSync(temp);
  const summaryFile = join(dir, 'step-summary.md');
  writeFileSync(summaryFile, '');
  // GitHub fills in the defaults of the inputs a caller leaves out.
  const given = Object.fromEntries(Object.entries<any>(action.inputs).map(([k, v]) => [k, inputs[k] ?? v.default ?? '']));
  const ctx: Record<string, any> = { inputs: given, steps: {}, github: { action_path: ROOT, workspace }, runner: { os: 'Linux', temp } };
  const steps: Step[] = [];
  let failed = false;
  let log = '';
  let outputFiles = '';
  for (const [i, step] of (action.runs.steps as any[]).entries()) {
    const name = step.id ?? step.name;
    if (step.uses) {
      steps.push({ name, code: null });
      continue;
    }
    // The install packs and installs the package (scripts/package.test.ts proves that); this worktree,
    // with its dependencies, is that package here, and its command the one the run step gets.
    if (step.id === 'install') {
      steps.push({ name, code: null });
      ctx.steps.install = { outputs: { command: join(ROOT, 'bin/console-conformance.mjs') } };
      continue;
    }
    if (step.if !== undefined && step.if !== 'always()') throw new Error(`the test does not evaluate if: ${step.if}`);
    if (failed && step.if !== 'always()') {
      steps.push({ name, code: null });
      continue;
    }
    const outputFile = join(dir, `output-${i}`);
    writeFileSync(outputFile, '');
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      GITHUB_ACTIONS: 'true',
      GITHUB_ACTION_PATH: ROOT,
      GITHUB_WORKSPACE: workspace,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      GITHUB_JOB: 'release',
      GITHUB_RUN_ID: '42',
      GITHUB_RUN_ATTEMPT: '1',
      RUNNER_OS: 'Linux',
      RUNNER_TEMP: temp,
      ...Object.fromEntries(Object.entries<string>(step.env ?? {}).map(([k, v]) => [k, evaluate(v, ctx)])),
    };
    const cwd = step['working-directory'] ? evaluate(step['working-directory'], ctx) : workspace;
    const r = await bash(step.run, env, cwd);
    log += r.out;
    const written = readFileSync(outputFile, 'utf8');
    outputFiles += written;
    const outputs = Object.fromEntries(
      written
        .split('\n')
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    if (step.id) ctx.steps[step.id] = { outputs };
    steps.push({ name, code: r.code });
    if (r.code !== 0) failed = true;
  }
  const outputs = Object.fromEntries(Object.entries<any>(action.outputs).map(([k, v]) => [k, evaluate(v.value, ctx)]));
  return { steps, outputs, log, outputFiles, summary: readFileSync(summaryFile, 'utf8'), workspace, temp };
}

const codes = (r: Run) => Object.fromEntries(r.steps.map((s) => [s.name, s.code]));
const MANIFEST = { 'conformance/console-target.json': join(ROOT, 'fixtures/targets/reference.json') };

test('a server breaking a stated clause: the step fails with exit 1 and FAIL, after the reports of that run are written', { timeout: 180_000 }, async () => {
  // The server repository's release workflow has started its server; the action gets its URL, its key
  // from a secret and the manifest committed in that repository.
  const key = randomApiKey();
  const server = await startReference({ apiKey: key, faults: ['auth-any-key'], stderr: 'ignore' });
  let r: Run;
  try {
    r = await runAction({ 'base-url': server.baseUrl, 'api-key': key, manifest: 'conformance/console-target.json' }, MANIFEST);
  } finally {
    await server.stop();
  }
  assert.deepEqual(codes(r), {
    'Mask the API key': 0,
    check: 0,
    'Set up Node.js': null,
    'Cache npm downloads': null,
    install: null,
    run: 0,
    upload: null,
    Verdict: 1,
  });
  const reports = join(r.temp, 'console-conformance-reports');
  assert.deepEqual(
    { ...r.outputs, 'artifact-id': undefined, 'artifact-url': undefined },
    {
      'exit-code': '1',
      verdict: 'FAIL',
      'report-path': reports,
      'artifact-name': 'console-conformance-release-42-1',
      'artifact-id': undefined,
      'artifact-url': undefined,
    },
  );
  assert.match(r.log, /::error title=console-conformance::contract failure: the server breaks a stated clause/);
  assert.match(r.summary, /^### console-conformance: FAIL \(exit 1\)$/m);
  assert.match(r.summary, /^verdict +FAIL \(exit 1\)/m);
  // That run, against that server, with the caller's manifest (not the suite's reference).
  const verify = JSON.parse(readFileSync(join(reports, 'verify.json'), 'utf8'));
  assert.equal(verify.exitCode, 1);
  assert.equal(verify.target.url, server.baseUrl);
  assert.equal(verify.target.reference, false);
  assert.match(verify.manifest, /workspace\/conformance\/console-target\.json$/);
  assert.equal(verify.options.strict, true);
  assert.equal(verify.options.skipLoad, true);
  for (const f of ['index.html', 'conformance.json', 'junit.xml']) assert.ok(existsSync(join(reports, f)), f);
  // The key: in the mask command (which GitHub takes out of the log) and nowhere else.
  const maskLine = `::add-mask::${key}`;
  assert.equal(
    r.log
      .split('\n')
      .filter((l) => l.includes(key))
      .join('\n'),
    maskLine,
  );
  for (const form of keyForms(key)) {
    assert.ok(!r.log.replace(maskLine, '').includes(form), 'the log holds a form of the key');
    assert.ok(!(r.outputFiles + r.summary).includes(form), 'the outputs or the summary hold a form of the key');
  }
  assert.equal(verify.stages.find((s: any) => s.name === 'secret scan')?.status, 'pass', 'the suite found no trace of the key in its reports');
});

test('the bundled reference server, reports and history in the workspace: exit 0 and PASS', { timeout: 180_000 }, async () => {
  const r = await runAction({ 'reports-dir': 'out/reports', history: 'out/history/runs.sqlite', 'artifact-name': 'conformance-reference' });
  assert.equal(codes(r).Verdict, 0, r.log);
  assert.equal(r.outputs['exit-code'], '0');
  assert.equal(r.outputs.verdict, 'PASS');
  assert.equal(r.outputs['report-path'], join(r.workspace, 'out/reports'));
  assert.equal(r.outputs['artifact-name'], 'conformance-reference');
  assert.match(r.log, /::notice title=console-conformance::PASS/);
  assert.equal(JSON.parse(readFileSync(join(r.workspace, 'out/reports/verify.json'), 'utf8')).target.reference, true);
  assert.ok(existsSync(join(r.workspace, 'out/history/runs.sqlite')), 'the run was added to the history named');
});

test('candidate mode: the bundled reference as current, a candidate breaking a stated clause: exit 1 and REGRESSION, candidate.json written, no key in the log', {
  timeout: 300_000,
}, async () => {
  const key = randomApiKey();
  const server = await startReference({ apiKey: key, faults: ['wrong-message-experiments'], stderr: 'ignore' });
  let r: Run;
  try {
    r = await runAction({ 'candidate-url': server.baseUrl, 'candidate-api-key': key, 'candidate-manifest': 'conformance/console-target.json' }, MANIFEST);
  } finally {
    await server.stop();
  }
  assert.equal(codes(r).run, 0, r.log.slice(-2000));
  assert.equal(codes(r).Verdict, 1);
  assert.deepEqual([r.outputs['exit-code'], r.outputs.verdict], ['1', 'REGRESSION']);
  assert.match(r.summary, /^### console-conformance, current vs candidate: REGRESSION \(exit 1\)$/m);
  assert.match(r.summary, /REGRESSION candidate breaks stated clause experiments\.list\.message/);
  const report = JSON.parse(readFileSync(join(r.temp, 'console-conformance-reports', 'candidate.json'), 'utf8'));
  assert.deepEqual(
    report.regressions.map((g: { clause: string }) => g.clause),
    ['experiments.list.message'],
  );
  assert.equal(
    r.log
      .split('\n')
      .filter((l) => l.includes(key))
      .join('\n'),
    `::add-mask::${key}`,
  );
});

test('a server that does not answer: exit 3 and NOT RUN, the reports folder still given', { timeout: 120_000 }, async () => {
  // A loopback port that was just free: nothing listens there.
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  const r = await runAction({ 'base-url': `http://127.0.0.1:${port}`, 'api-key': randomApiKey(), manifest: 'conformance/console-target.json' }, MANIFEST);
  assert.equal(codes(r).run, 0);
  assert.equal(codes(r).Verdict, 3);
  assert.equal(r.outputs['exit-code'], '3');
  assert.equal(r.outputs.verdict, 'NOT RUN');
  assert.match(r.log, /::error title=console-conformance::the run could not be carried out \(exit 3\)/);
  assert.match(r.summary, /^### console-conformance: NOT RUN \(exit 3\)$/m);
  assert.match(r.summary, new RegExp(`target http://127\\.0\\.0\\.1:${port} unreachable`), 'the summary says why');
});

test('a bad input stops at the check step with one line naming it: exit 3, the suite never starts', async () => {
  const cases: [Record<string, string>, string][] = [
    [{ strict: 'yes' }, 'input strict must be true or false, got "yes"'],
    [{ 'skip-load': 'False' }, 'input skip-load must be true or false, got "False"'],
    [{ 'read-only': '1' }, 'input read-only must be true or false, got "1"'],
    [{ profile: 'huge' }, 'input profile must be smoke, baseline or stress, got "huge"'],
    [{ deadline: '10m' }, 'input deadline must be a number of seconds, got "10m"'],
    [{ 'base-url': 'staging.example.com' }, 'input base-url must be an http or https URL (the host root of the server), got "staging.example.com"'],
    [{ 'base-url': 'http://127.0.0.1:8080', 'api-key': 'k' }, 'input manifest is required with base-url'],
    [{ manifest: 'missing.json' }, 'no target manifest at missing.json'],
    [{ 'observations-baseline': 'last/observations.json' }, 'no observations file at last/observations.json'],
    [{ 'artifact-name': 'a/b' }, 'input artifact-name must not contain'],
    [{ 'candidate-url': 'canary.example.com' }, 'input candidate-url must be an http or https URL'],
    [{ 'candidate-url': 'http://127.0.0.1:8081' }, 'input candidate-manifest is required with candidate-url'],
    [{ 'candidate-url': 'http://127.0.0.1:8081', 'candidate-manifest': 'canary.json' }, 'no candidate manifest at canary.json'],
    [{ 'freeze-open': 'yes' }, 'input freeze-open must be true or false, got "yes"'],
    [{ 'candidate-latency': 'on' }, 'input candidate-latency must be true or false, got "on"'],
    [{ 'candidate-min-effect': '10%' }, 'input candidate-min-effect must be a percentage (0 or more), got "10%"'],
    [
      { 'candidate-url': 'http://127.0.0.1:8081', 'candidate-latency': 'true', profile: 'stress' },
      'input profile must be smoke or baseline with candidate-latency',
    ],
  ];
  for (const [inputs, reason] of cases) {
    const r = await runAction(inputs);
    const where = JSON.stringify(inputs);
    assert.equal(codes(r).check, 3, where);
    assert.equal(codes(r).run, null, `${where}: the suite started`);
    assert.equal(codes(r).Verdict, 3, where);
    const errors = r.log.split('\n').filter((l) => l.startsWith('::error'));
    assert.ok(errors[0].startsWith(`::error title=console-conformance::${reason}`), `${where}: ${errors[0]}`);
    assert.deepEqual({ exit: r.outputs['exit-code'], verdict: r.outputs.verdict }, { exit: '3', verdict: 'NOT RUN' });
  }
});

test('action.sh outside the action: --help, and exit 3 with one line for a wrong step or no GITHUB_OUTPUT', async () => {
  const script = join(ROOT, 'scripts/ci/action.sh');
  const env = { PATH: process.env.PATH ?? '' };
  const help = await bash(`bash ${script} --help`, env, work);
  assert.equal(help.code, 0);
  assert.match(help.out, /^usage: scripts\/ci\/action\.sh mask\|check\|install\|run\|verdict/);
  const wrong = await bash(`bash ${script} deploy`, env, work);
  assert.deepEqual([wrong.code, wrong.out.trim().split('\n').length], [3, 1]);
  assert.match(wrong.out, /first argument must be mask, check, install, run or verdict, got "deploy"/);
  const outside = await bash(`bash ${script} check`, env, work);
  assert.deepEqual([outside.code, outside.out.trim()], [3, 'action.sh: GITHUB_OUTPUT is not set: these are the steps of action.yml, run by GitHub Actions']);
});
