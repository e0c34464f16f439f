// The arithmetic and the table of bench:runners (runners.ts): per endpoint, the requests and the
// p50/p95 of each runner count, and each merged run's ratio to the one-runner run.
import type { Figures, RunSummary } from '../../core/formats.ts';

export interface RunnersResult {
  runners: number;
  summary: RunSummary;
  seconds: number;
}

const total = (s: RunSummary) => Object.values(s.endpoints).reduce((n, e) => n + e.count, 0);
const ms = (n: number) => (n >= 10 ? n.toFixed(1) : n.toFixed(2));
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : '-');

/** The table as Markdown, the first result the reference of the ratios (one runner, as bench:runners orders them). */
export function runnersTable(results: RunnersResult[]): string {
  const [single, ...others] = results;
  const names = [...new Set(results.flatMap((r) => Object.keys(r.summary.endpoints)))].sort();
  const head = [
    'endpoint',
    `${single.runners} runner${single.runners === 1 ? '' : 's'}: requests, p50, p95 (ms)`,
    ...others.map((r) => `${r.runners} runners: requests, p50, p95 (ms)`),
    ...others.map((r) => `${r.runners} vs ${single.runners}: requests, p50, p95`),
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  const cell = (e: Figures | undefined) => (e ? `${e.count}, ${ms(e.p50)}, ${ms(e.p95)}` : '-');
  for (const name of names) {
    const base = single.summary.endpoints[name];
    const row = [name, cell(base), ...others.map((r) => cell(r.summary.endpoints[name]))];
    for (const r of others) {
      const e = r.summary.endpoints[name];
      row.push(e && base ? `${ratio(e.count, base.count)}, ${ratio(e.p50, base.p50)}, ${ratio(e.p95, base.p95)}` : '-');
    }
    lines.push(`| ${row.join(' | ')} |`);
  }
  lines.push(
    `| all requests | ${total(single.summary)} | ${others.map((r) => String(total(r.summary))).join(' | ')} | ${others.map((r) => ratio(total(r.summary), total(single.summary))).join(' | ')} |`,
  );
  return lines.join('\n');
}
