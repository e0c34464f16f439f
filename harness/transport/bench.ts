// npm run bench:transport -- [--only NAME,...] [--keep]
// The transport benchmark (docs/transport.md): the real commands run through a misbehaving proxy in
// front of a reference server, one scenario at a time, and a table of what a user gets from each:
// exit code, time against the deadline, which reports were written and whether they say partial,
// the one line on stderr, and whether any form of the key leaked. Exit 1 when a scenario breaks a
// rule (exit 1 for a network fault, past its deadline, a report missing, the key leaked), else 0.
import { fail, parseCommand, runCommand } from '../../core/command.ts';
import { runScenario, type ScenarioOutcome, type ScenarioSpec } from './run-scenario.ts';

const HELP = `usage: npm run bench:transport -- [--only NAME,...] [--keep]

Runs npm run conformance (and once npm run verify -- --skip-load, and the load profiles at smoke size)
through a misbehaving proxy on 127.0.0.1 in front of a fresh reference server, one scenario at a time
(a few minutes in all), and prints per scenario: exit code, seconds against its --deadline (load: its
bound), conformance.json / junit.xml / index.html written and marked partial (load: summary.json),
the last stderr line, and whether the key leaked.

  --only NAME,...  only these scenarios (names as in the table)
  --keep           keep each scenario's reports folder (printed) instead of deleting it
  -h, --help       this text

Environment: CONSOLE_* variables are not passed on: each scenario's commands get their own target.
Exit 0 every scenario kept the rules, 1 one did not, 3 bad arguments or the benchmark could not run.`;

/** 40 faithful requests: the preflight and the first tests' calls, then the fault. */
const K = 40;
const BENCH: ScenarioSpec[] = [
  { name: 'down', scenario: 'down', after: K, command: 'conformance', deadline: 60 },
  { name: 'down-verify', scenario: 'down', after: K, command: 'verify', deadline: 60 },
  { name: 'hang', scenario: 'hang', after: K, command: 'conformance', deadline: 60, requestTimeout: 2 },
  { name: 'hang-deadline', scenario: 'hang', after: K, command: 'conformance', deadline: 20 },
  { name: 'reset', scenario: 'reset', after: K, command: 'conformance', deadline: 60 },
  { name: 'flaky-reset', scenario: 'flaky-reset', after: K, command: 'conformance', deadline: 60 },
  { name: 'html-502', scenario: 'html-502', after: K, command: 'conformance', deadline: 60 },
  { name: 'truncated', scenario: 'truncated', after: K, command: 'conformance', deadline: 60 },
  { name: 'rate-limit', scenario: 'rate-limit', after: K, command: 'conformance', deadline: 60 },
  { name: 'redirect', scenario: 'redirect', after: K, command: 'conformance', deadline: 60 },
  { name: 'login-page', scenario: 'login-page', after: K, command: 'conformance', deadline: 60 },
  { name: 'huge-body', scenario: 'huge-body', after: K, command: 'conformance', deadline: 60 },
  { name: 'redirect-preflight', scenario: 'redirect', after: 0, command: 'conformance', deadline: 60 },
  { name: 'login-page-preflight', scenario: 'login-page', after: 0, command: 'conformance', deadline: 60 },
  // Load at smoke size: setup (a handful of requests) answered faithfully, then the fault under load.
  { name: 'load-flaky-reset', scenario: 'flaky-reset', after: 20, command: 'load:mutation', deadline: 90 },
  { name: 'load-rate-limit', scenario: 'rate-limit', after: 20, command: 'load:paging', deadline: 90 },
  { name: 'load-html-502', scenario: 'html-502', after: 20, command: 'load:paging', deadline: 90 },
  { name: 'load-redirect', scenario: 'redirect', after: 20, command: 'load:paging', deadline: 90 },
  { name: 'load-hang', scenario: 'hang', after: 20, command: 'load:paging', deadline: 90, requestTimeout: 2 },
];

/** The rules every scenario must keep; empty when it kept them all. */
function broken(o: ScenarioOutcome): string[] {
  const out: string[] = [];
  if (o.exitCode === 1) out.push('exit 1 for a network fault');
  if (o.exitCode === null) out.push('killed: did not stop by itself');
  if (o.seconds > o.spec.deadline) out.push(`ran ${o.seconds.toFixed(1)} s, past its ${o.spec.deadline} s deadline`);
  if (o.keyIn.length || o.keyElsewhere)
    out.push(`key leaked: ${[...o.keyIn, ...(o.keyElsewhere ? [`${o.keyElsewhere} request(s) to another origin`] : [])].join(', ')}`);
  const preflight = o.spec.after === 0;
  const load = o.spec.command.startsWith('load:');
  if (load && o.exitCode === 3 && !o.loadSummary) out.push('exit 3 without summary.json');
  if (o.exitCode === 3 && !preflight && !load) {
    if (!o.conformanceJson || !o.junitXml) out.push('exit 3 without conformance.json and junit.xml');
    else if (!o.partial && !o.inconclusive) out.push('exit 3 but the report says neither partial nor inconclusive');
    if (o.spec.command === 'verify' && !o.indexHtml) out.push('verify wrote no index.html');
  }
  if (o.exitCode === 3 && o.lastLine === '') out.push('exit 3 without a reason on stderr');
  return out;
}

const yn = (b: boolean | undefined, partial?: boolean) => (b ? (partial ? 'partial' : 'yes') : 'no');

function row(o: ScenarioOutcome): string {
  const rules = broken(o);
  const cells = [
    o.spec.name,
    o.spec.command === 'verify' ? 'verify --skip-load' : o.spec.command,
    String(o.exitCode ?? 'killed'),
    `${o.seconds.toFixed(1)} / ${o.spec.deadline}`,
    o.spec.command.startsWith('load:') ? yn(o.loadSummary) : yn(o.conformanceJson, o.partial),
    o.spec.command.startsWith('load:') ? '–' : yn(o.junitXml),
    o.spec.command === 'verify' ? yn(o.indexHtml) : '–',
    String(o.lines),
    o.keyIn.length || o.keyElsewhere ? 'LEAKED' : 'no',
    rules.length ? `BROKEN: ${rules.join('; ')}` : o.lastLine.replace(/^(conformance|verify|load): /, '') || '(none)',
  ];
  return `| ${cells.join(' | ')} |`;
}

async function main(): Promise<number> {
  const { values } = parseCommand({ name: 'bench:transport', help: HELP, options: { only: { type: 'string' }, keep: { type: 'boolean' } } });
  const keep = values.keep ?? false;
  const only = values.only === undefined ? undefined : values.only.split(',').filter(Boolean);
  const names = new Set(BENCH.map((s) => s.name));
  const bad = only?.find((n) => !names.has(n));
  if (bad || (only && only.length === 0)) fail('bench:transport', `--only: no scenario ${JSON.stringify(bad ?? '')} (scenarios: ${[...names].join(', ')})`);
  const chosen = BENCH.filter((s) => !only || only.includes(s.name));
  console.log(
    '| scenario | command | exit | seconds / deadline | conformance.json (load: summary.json) | junit.xml | index.html | output lines | key leaked | stderr (last line) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  const t0 = Date.now();
  let failures = 0;
  for (const spec of chosen) {
    const o = await runScenario(spec, keep);
    if (broken(o).length) failures++;
    console.log(row(o) + (keep ? ` reports: ${o.reports}` : ''));
  }
  console.log(
    `\nbench:transport: ${chosen.length} scenarios in ${((Date.now() - t0) / 1000).toFixed(0)} s; ${failures ? `${failures} broke a rule` : 'every one kept the rules (no exit 1, none past its deadline, reports written, no key leaked)'}`,
  );
  return failures ? 1 : 0;
}

runCommand('bench:transport', main);
