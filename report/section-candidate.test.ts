import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CandidateReport, type Exchange, writeCandidate } from '../core/formats.ts';
import { renderPage } from './html.ts';
import { readInputs } from './inputs.ts';
import { SPEC_MESSAGES } from '../contracts/index.ts';

const ex = (message: string): Exchange => ({
  method: 'GET',
  path: '/console/v1/experiments',
  requestHeaders: {},
  status: 200,
  responseBody: { message },
  curl: "curl -sS -X GET 'http://x/console/v1/experiments'",
});

const report: CandidateReport = {
  format: 'console-conformance.candidate/1',
  verdict: 'regression',
  exitCode: 1,
  startedAt: '2026-11-27T22:00:00.000Z',
  durationMs: 1000,
  options: { readOnly: true, strict: false, freezeOpen: false, reads: 2 },
  sides: [
    { side: 'current', target: 'http://current', manifest: 'm.json', reads: [{ verdict: 'pass', exitCode: 0, reports: 'candidate/current-1' }] },
    { side: 'candidate', target: 'http://candidate', manifest: 'm.json', reads: [{ verdict: 'fail', exitCode: 1, reports: 'candidate/candidate-1' }] },
  ],
  regressions: [
    {
      clause: 'experiments.list.message',
      level: 'stated',
      section: '4.4',
      text: 'the message',
      current: 'pass',
      test: 't',
      error: 'message differs',
      exchanges: { current: ex(SPEC_MESSAGES.listExperiments), candidate: ex('Experiments fetched.') },
    },
  ],
  changes: [
    {
      operation: 'listExperiments',
      kind: 'page size',
      where: 'data.length',
      clauses: ['experiments.list.limit'],
      current: 20,
      candidate: 50,
      count: 2,
      test: 't',
      exchanges: { current: ex('a'), candidate: ex('b') },
    },
  ],
  bothBroken: [],
  fixed: [],
  noise: { places: 3, differencesIgnored: 80, unstableTests: 0 },
  paired: { exchanges: 240, tests: 75 },
};

test('the page shows current vs candidate: the regression with both exchanges side by side, changes by operation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-report-candidate-'));
  try {
    assert.doesNotMatch(renderPage(readInputs(dir)), /id="candidate"/);
    writeCandidate(dir, report);
    const html = renderPage(readInputs(dir));
    const section = html.slice(html.indexOf('<section id="candidate">'), html.indexOf('</section>', html.indexOf('<section id="candidate">')));
    assert.match(section, /Current vs candidate/);
    assert.match(section, /experiments\.list\.message/);
    assert.match(section, /Experiments fetched\./);
    assert.match(section, /Experiments listed successfully\./);
    assert.match(section, /<h4><code>listExperiments<\/code> \(1\)<\/h4>/);
    assert.match(section, /page size at <code>data\.length<\/code>/);
    assert.match(html, /href="#candidate"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("with --latency the section shows each operation's ratio, its interval, and which is slower", () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-report-candidate-'));
  try {
    const endpoint = (name: string, ratio: number, regression: boolean) => ({
      endpoint: name,
      regression,
      decidable: true,
      ratio,
      lower: ratio - 0.05,
      upper: ratio + 0.05,
      p: regression ? 1e-6 : 0.4,
      alpha: 0.002,
      n: { current: 100, candidate: 100 },
      median: { current: 40, candidate: 40 * ratio },
      reason: '',
    });
    writeCandidate(dir, {
      ...report,
      latency: {
        scripts: ['paging'],
        profile: 'smoke',
        verdict: 'regression',
        minEffect: 0.1,
        alpha: 0.01,
        confidence: 0.95,
        calibration: 1.01,
        endpoints: [endpoint('listExperiments', 1.5, true), endpoint('listReleasePipelines', 1, false)],
        requests: { paired: 200, candidateFirst: 98 },
        reports: 'candidate/latency',
      },
    });
    const html = renderPage(readInputs(dir));
    const table = html.slice(html.indexOf('<table id="candidate-latency">'), html.indexOf('</table>', html.indexOf('<table id="candidate-latency">')));
    assert.match(table, /<code>listExperiments<\/code><\/td><td>40<\/td><td>60<\/td><td>1\.5x<\/td><td>1\.45-1\.55x<\/td>.*slower/);
    assert.doesNotMatch(table.slice(table.indexOf('listReleasePipelines')), /slower/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
