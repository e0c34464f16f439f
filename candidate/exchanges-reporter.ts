// A Playwright reporter beside the suite's own: it keeps every exchange of every test, in the order the
// test made them, as exchanges.json in the run's reports folder. The suite's reporter keeps only the
// exchanges of failures; `npm run candidate` pairs two runs' exchanges request by request. The exchanges
// are the attachments contracts/support/evidence.ts made, already redacted; the file is redacted again.
import type { Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { loadConfig } from '../core/config.ts';
import { type Exchange, type TestExchanges, writeExchangeLog } from '../core/formats.ts';
import { redactText } from '../core/keys.ts';

/** The same test in two runs, whatever its worker or order: its title path (file, describes, title). */
export const testKey = (titlePath: string[]): string => titlePath.filter(Boolean).join(' > ');

export default class ExchangesReporter implements Reporter {
  private readonly tests = new Map<string, TestExchanges>();
  private readonly config = loadConfig(process.env, () => {});

  printsToStdio(): boolean {
    return false;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const key = testKey(test.titlePath());
    const annotations = [...test.annotations, ...result.annotations];
    const observations = annotations
      .filter((a) => a.type === 'observation' && a.description)
      .map((a) => {
        const o = JSON.parse(a.description!) as { clause: string; aspect: string };
        return `${o.clause}:${o.aspect}`;
      });
    // A test run again (--repeat-each) keeps its last result: the pairs are per test, not per attempt.
    this.tests.set(key, {
      key,
      clauses: [...new Set(annotations.filter((a) => a.type === 'clause').map((a) => a.description ?? ''))],
      observations: [...new Set(observations)],
      status: result.status,
      exchanges: result.attachments.filter((a) => a.name === 'exchange' && a.body).map((a) => JSON.parse(a.body!.toString()) as Exchange),
    });
  }

  onEnd(): void {
    const tests = [...this.tests.values()].sort((a, b) => a.key.localeCompare(b.key));
    writeExchangeLog(this.config.reportsDir, { format: 'console-conformance.exchanges/1', tests }, (text) => redactText(text, this.config.apiKey));
  }
}
