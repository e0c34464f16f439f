// JUnit XML written from a run's end-of-run data (load/lib/summary-data.ts): one test case per
// threshold and per check. Escaped with core/xml.ts, as the conformance suite's JUnit is.
import { xmlEscape } from '../../core/xml.ts';
import type { GroupData, SummaryData } from './summary-data.ts';

interface Case {
  classname: string;
  name: string;
  failure?: string;
}

function collectChecks(group: GroupData, out: Case[], suite: string): void {
  for (const c of group.checks ?? []) {
    out.push({ classname: `${suite}.checks`, name: c.name, failure: c.fails > 0 ? `${c.fails} of ${c.passes + c.fails} failed` : undefined });
  }
  for (const g of group.groups ?? []) collectChecks(g, out, suite);
}

export function profileJunitXml(suite: string, data: SummaryData): string {
  const cases: Case[] = [];
  for (const metric of Object.keys(data.metrics).sort()) {
    const th = data.metrics[metric].thresholds ?? {};
    for (const expr of Object.keys(th)) {
      cases.push({ classname: `${suite}.thresholds`, name: `${metric} ${expr}`, failure: th[expr].ok ? undefined : `threshold crossed: ${metric} ${expr}` });
    }
  }
  collectChecks(data.root_group ?? {}, cases, suite);
  const failures = cases.filter((c) => c.failure).length;
  const seconds = ((data.state?.testRunDurationMs ?? 0) / 1000).toFixed(3);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(suite)}" tests="${cases.length}" failures="${failures}" time="${seconds}">`,
    `  <testsuite name="${xmlEscape(suite)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0" time="${seconds}">`,
  ];
  for (const c of cases) {
    const head = `    <testcase classname="${xmlEscape(c.classname)}" name="${xmlEscape(c.name)}"`;
    lines.push(c.failure ? `${head}><failure message="${xmlEscape(c.failure)}"/></testcase>` : `${head}/>`);
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
