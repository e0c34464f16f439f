// Writes reports/conformance.json (architecture guide, section 6) and reports/observations.json, and
// prints the clause matrix. Levels decide what a failed test means: stated fails the run, inferred
// warns (fails under strict), open only records observations.
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT, loadConfig } from '../../scripts/lib/config.ts';
import { redactText } from './redact.ts';

type Level = 'stated' | 'inferred' | 'open';
type Status = 'pass' | 'fail' | 'warn' | 'observed' | 'uncovered';

interface Ran { title: string; file: string; level: Level; clauses: string[]; ok: boolean; error?: string; exchanges: unknown[]; observations: { clause: string; value: unknown }[] }
interface CatalogueEntry { id: string; section?: string; level?: Level; text?: string }

function catalogue(): Map<string, CatalogueEntry> {
  const path = join(ROOT, 'contracts/clauses.yaml');
  const map = new Map<string, CatalogueEntry>();
  if (!existsSync(path)) return map;
  const doc = parse(readFileSync(path, 'utf8')) as { clauses?: CatalogueEntry[] };
  for (const c of doc.clauses ?? []) map.set(c.id, c);
  return map;
}

export default class ConformanceReporter implements Reporter {
  private ran: Ran[] = [];
  private started = Date.now();

  onTestEnd(test: TestCase, result: TestResult): void {
    const level = (test.tags.find((t) => ['@stated', '@inferred', '@open'].includes(t))?.slice(1) ?? 'stated') as Level;
    const clauses = test.annotations.filter((a) => a.type === 'clause').map((a) => a.description ?? '');
    const observations = result.annotations.concat(test.annotations).filter((a) => a.type === 'observation').map((a) => JSON.parse(a.description ?? '{}'));
    const exchanges = result.attachments.filter((a) => a.name === 'exchange' && a.body).map((a) => JSON.parse(a.body!.toString()));
    const ok = result.status === 'passed' || result.status === 'skipped';
    // Keep only the last tries of a test (repeat-each gives one entry per run, all kept).
    this.ran.push({ title: test.titlePath().filter(Boolean).join(' › '), file: test.location.file, level, clauses, ok, error: ok ? undefined : (result.error?.message ?? result.status).split('\n').slice(0, 6).join('\n'), exchanges, observations });
  }

  onEnd(result: FullResult): void {
    // `playwright test --list` (clauses:coverage) runs no test: leave the last run's reports alone.
    if (this.ran.length === 0) return;
    let config: ReturnType<typeof loadConfig> | undefined;
    try { config = loadConfig(); } catch { /* reported by the wrapper */ }
    const strict = config?.strict ?? false;
    const key = config?.apiKey;
    const known = catalogue();
    const byClause = new Map<string, Ran[]>();
    for (const r of this.ran) for (const c of r.clauses) byClause.set(c, [...(byClause.get(c) ?? []), r]);
    const ids = new Set([...known.keys(), ...byClause.keys(), ...this.ran.flatMap((r) => r.observations.map((o) => o.clause))]);
    const clauses = [...ids].sort().map((id) => {
      const entry = known.get(id);
      const tests = byClause.get(id) ?? [];
      // Observations of an open clause may come from any test, annotated with the clause or not.
      const observations = this.ran.flatMap((t) => t.observations.filter((o) => o.clause === id).map((o) => ({ test: t.title, value: o.value })));
      const level: Level = entry?.level ?? tests[0]?.level ?? 'stated';
      let status: Status;
      if (tests.length === 0) status = observations.length > 0 ? 'observed' : 'uncovered';
      // An open test only records; when it fails, a stated check inside it (status, schema) failed.
      else if (tests.some((t) => !t.ok && t.level !== 'inferred')) status = 'fail';
      else if (tests.some((t) => !t.ok && t.level === 'inferred')) status = strict ? 'fail' : 'warn';
      else if (level === 'open' || tests.every((t) => t.level === 'open')) status = 'observed';
      else status = 'pass';
      const evidence = tests.filter((t) => !t.ok).map((t) => ({ test: t.title, error: t.error, exchanges: t.exchanges.slice(-3) }));
      return { id, section: entry?.section ?? null, level, status, text: entry?.text ?? null, tests: [...new Set(tests.map((t) => t.title))], evidence, observations };
    });
    const failures = this.ran.filter((r) => !r.ok).map((r) => ({ test: r.title, level: r.level, clauses: r.clauses, error: r.error, exchanges: r.exchanges.slice(-3), counts: r.level !== 'inferred' || strict }));
    const count = (s: Status) => clauses.filter((c) => c.status === s).length;
    const contractFailure = failures.some((f) => f.counts);
    const summary = {
      verdict: contractFailure ? 'fail' : 'pass',
      strict,
      target: config?.baseUrl ?? null,
      manifest: config?.manifestPath ?? null,
      startedAt: new Date(this.started).toISOString(),
      durationMs: Date.now() - this.started,
      tests: { total: this.ran.length, passed: this.ran.filter((r) => r.ok).length, failed: failures.length },
      clauses: { total: clauses.length, pass: count('pass'), fail: count('fail'), warn: count('warn'), observed: count('observed'), uncovered: count('uncovered') },
      byLevel: Object.fromEntries((['stated', 'inferred', 'open'] as Level[]).map((l) => [l, clauses.filter((c) => c.level === l).length])),
      playwrightStatus: result.status,
    };
    // What each open clause looked like this run (distinct values), and drift against a previous run.
    const observations: Record<string, unknown[]> = {};
    for (const c of clauses) {
      const values = [...new Set(c.observations.map((o: { value: unknown }) => JSON.stringify(o.value)))].sort();
      if (values.length > 0) observations[c.id] = values.map((v) => JSON.parse(v));
    }
    const drift: { clause: string; before: unknown; now: unknown }[] = [];
    if (config?.observationsBaseline) {
      let before: Record<string, unknown[]> = {};
      try {
        before = JSON.parse(readFileSync(config.observationsBaseline, 'utf8'));
      } catch (err) {
        console.error(`conformance: cannot read the previous observations ${config.observationsBaseline}: ${(err as Error).message}`);
      }
      // Only what this run observed: a filtered run (--grep, --shard) says nothing of the rest.
      for (const id of Object.keys(observations)) {
        if (JSON.stringify(before[id] ?? null) !== JSON.stringify(observations[id] ?? null)) drift.push({ clause: id, before: before[id] ?? null, now: observations[id] ?? null });
      }
    }
    const dir = config?.reportsDir ?? join(ROOT, 'reports');
    mkdirSync(dir, { recursive: true });
    const write = (name: string, value: unknown) => writeFileSync(join(dir, name), redactText(JSON.stringify(value, null, 2), key) + '\n');
    write('conformance.json', { summary: { ...summary, drift: drift.length }, clauses, failures, drift });
    write('observations.json', observations);

    const line = (l: Level) => {
      const cs = clauses.filter((c) => c.level === l);
      const n = (s: Status) => cs.filter((c) => c.status === s).length;
      return `  ${l.padEnd(9)} ${String(cs.length).padStart(4)}  pass ${n('pass')}  fail ${n('fail')}  warn ${n('warn')}  observed ${n('observed')}  uncovered ${n('uncovered')}`;
    };
    console.log(`\nClause matrix (${strict ? 'strict' : 'default'} mode):\n${line('stated')}\n${line('inferred')}\n${line('open')}`);
    for (const f of failures) {
      const last = f.exchanges.at(-1) as any;
      console.log(`\n${f.counts ? 'FAIL' : 'WARN'} [${f.level}] ${f.clauses.join(', ')} :: ${f.test}\n  ${(f.error ?? '').split('\n')[0]}`);
      if (last) console.log(`  ${last.method} ${last.path} -> ${last.status}\n  ${last.curl}`);
    }
    for (const d of drift) console.log(`DRIFT ${d.clause}: was ${JSON.stringify(d.before)}, now ${JSON.stringify(d.now)}`);
    console.log(`\nconformance: ${summary.verdict.toUpperCase()}: ${summary.tests.passed}/${summary.tests.total} tests passed; reports/conformance.json written`);
  }
}
