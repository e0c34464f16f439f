// The conformance stage: the suite through contracts/conformance.ts against the target (or a reference
// server it starts), its progress on one line, its summary read back for the verdict.
import { readConformance, type StageResult } from '../../../core/formats.ts';
import { referenceUnlessTarget } from '../../../core/reference.ts';
import { forgetOwed } from '../../../core/ledger.ts';
import type { ConformanceSummary } from '../../../contracts/support/reporter.ts';
import { readTestLine, Ticker, type TestProgress } from '../progress.ts';
import { runTsx, setActiveServer } from './processes.ts';
import { type Run, secs, shortPath } from './run.ts';

/** The conformance stage: the suite through contracts/conformance.ts, its progress on one line. */
export async function conformanceStage(
  run: Run,
): Promise<{ stage: StageResult; summary: ConformanceSummary | undefined; targetUrl: string; reference: boolean }> {
  const { opts, reportsDir, observationsBaseline } = run;
  const confEnv = { ...run.env };
  const server = await referenceUnlessTarget(run.config, confEnv);
  setActiveServer(server);
  const targetUrl = confEnv.CONSOLE_BASE_URL!;
  run.say(`conformance suite against ${targetUrl}${server ? ' (the reference server, started by verify)' : ''}`);
  const confArgs = [
    '--deadline',
    String(Math.max(1, run.left()).toFixed(1)),
    ...(opts.strict ? ['--strict'] : []),
    ...(run.config.readOnly ? ['--read-only'] : []),
    ...(observationsBaseline ? ['--observations-baseline', observationsBaseline] : []),
    ...(opts.grep ? ['--grep', opts.grep] : []),
    ...(opts.waive ?? []).flatMap((w) => ['--waive', w]),
  ];
  if (observationsBaseline) console.log(`verify: drift against ${shortPath(observationsBaseline)}`);
  const progress: TestProgress = { total: null, done: 0, failed: 0 };
  const ticker = new Ticker();
  const tc = Date.now();
  const status = (p: TestProgress) =>
    `verify: conformance ${p.done}/${p.total ?? '?'} tests${p.failed ? `, ${p.failed} failed` : ''}, ${secs(tc).toFixed(0)} s`;
  let code: number;
  // The suite's own one-line reason when it cannot be carried out (e.g. "target ... unreachable: ECONNREFUSED").
  let reason = '';
  try {
    code = await runTsx(
      'contracts/conformance.ts',
      confArgs,
      confEnv,
      (line) => {
        const kind = readTestLine(progress, line);
        if (kind === 'test-passed') return ticker.show(status(progress), progress.done === progress.total);
        ticker.clear();
        console.log(line);
        if (kind === 'test-failed') ticker.show(status(progress), true);
      },
      (line) => {
        if (/^conformance: /.test(line)) reason = line.slice('conformance: '.length);
      },
    );
  } finally {
    ticker.clear();
    await server?.stop();
    setActiveServer(undefined);
    // The suite owed a reference server verify started and stopped: its database went with it.
    if (server) forgetOwed(reportsDir, targetUrl);
  }
  const summary: ConformanceSummary | undefined = readConformance(reportsDir)?.summary;
  const incomplete = code === 3 && summary?.verdict === 'incomplete';
  const stage: StageResult = {
    name: 'conformance',
    status: code === 0 ? 'pass' : code === 1 ? 'fail' : incomplete ? 'incomplete' : 'error',
    exitCode: code,
    seconds: secs(tc),
    detail: summary
      ? `${coverageNote(summary)}${summary.tests.passed}/${summary.tests.total} tests passed, ${summary.tests.failedCounting} failing the run; ${summary.findings?.total ?? 0} inferred findings${summary.findings?.counting ? ` (${summary.findings.counting} failing the run)` : ''}; ${summary.clauses.fail} clauses fail, ${summary.clauses.warn} warn${partialNote(summary)}`
      : `the suite could not be carried out: ${reason || `conformance exit ${code}`}`,
  };
  return { stage, summary, targetUrl, reference: Boolean(server) };
}

/** The stated coverage first, and why it is INCOMPLETE: the stage's detail must not read as a pass over unchecked clauses. */
function coverageNote(summary: ConformanceSummary): string {
  const c = summary.coverage;
  if (!c) return '';
  const unchecked = (summary.incomplete ?? []).map((g) => `INCOMPLETE: ${g.clauses.length} unchecked: ${g.reason}`);
  return `${c.checked}/${c.total} stated clauses checked${summary.readOnly ? ` (read-only: ${c.excluded} need a write)` : ''}${unchecked.length ? `; ${unchecked.join('; ')}` : ''}; `;
}

/** A partial or inconclusive conformance run, in the stage's detail. */
function partialNote(summary: ConformanceSummary): string {
  const parts: string[] = [];
  if (summary.tests.inconclusive) parts.push(`${summary.tests.inconclusive} inconclusive (transport)`);
  if (summary.stop) parts.push(`partial: stopped: ${summary.stop.reason} after ${summary.stop.afterTests} of ${summary.stop.ofTests} tests`);
  return parts.length ? `; ${parts.join('; ')}` : '';
}
