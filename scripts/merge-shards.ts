// npm run conformance:merge -- DIR
// Merges the blob reports of a sharded conformance run (one .zip per shard, all in DIR) into one set
// of reports: conformance.json, junit.xml, observations.json and Playwright's HTML report, as if the
// suite had run on one machine. The verdict is the merged one, so a CI job can gate on this exit code
// while each shard's own job only produces its blob. Exit codes: 0 pass, 1 contract failure, 3 nothing
// to merge, the merge failed, or tests were left inconclusive by the network (docs/transport.md).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { ROOT, loadConfigOr } from '../core/config.ts';

const HELP = `usage: npm run conformance:merge -- [--expect-shards N] DIR

Merges the Playwright blob reports in DIR (one per shard, from
  npm run conformance -- --shard I/N --reporter=list,blob,./contracts/support/reporter.ts
with PLAYWRIGHT_BLOB_OUTPUT_DIR set per shard) into reports/ (CONSOLE_REPORTS_DIR): conformance.json,
junit.xml, observations.json, playwright-report/. Set CONSOLE_STRICT=1 when the shards ran --strict.

  --expect-shards N  exit 3 unless DIR holds exactly N blob reports: a shard that could not run must
                     not leave a merged PASS over part of the suite

exit codes: 0 pass, 1 contract failure, 3 nothing to merge or the merge failed`;

function fail3(reason: string): never {
  console.error(`conformance:merge: ${reason}`);
  process.exit(3);
}

function main(): number {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(HELP);
    return 0;
  }
  let expected: number | undefined;
  const at = args.indexOf('--expect-shards');
  if (at >= 0) {
    expected = Number(args[at + 1]);
    if (!Number.isInteger(expected) || expected < 1) fail3(`--expect-shards must be a positive integer, got ${JSON.stringify(args[at + 1] ?? '')}`);
    args.splice(at, 2);
  }
  if (args.length !== 1 || args[0].startsWith('-')) fail3(`expected one folder of blob reports, got ${JSON.stringify(args)} (see --help)`);
  const dir = resolve(args[0]);
  if (!existsSync(dir)) fail3(`no folder ${dir}`);
  const blobs = readdirSync(dir).filter((f) => f.endsWith('.zip'));
  if (blobs.length === 0) fail3(`no blob report (.zip) in ${dir}`);
  if (expected !== undefined && blobs.length !== expected) fail3(`expected ${expected} shard reports in ${dir}, found ${blobs.length}: a shard did not finish`);
  const config = loadConfigOr(fail3);
  const report = join(config.reportsDir, 'conformance.json');
  rmSync(report, { force: true });
  console.log(`conformance:merge: ${blobs.length} shard report(s) from ${relative(process.cwd(), dir) || '.'}`);
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'merge-reports', '--config', join(ROOT, 'contracts/merge.config.ts'), dir], { cwd: ROOT, stdio: 'inherit' });
  if (!existsSync(report)) fail3(`the merge wrote no conformance.json (playwright merge-reports exit ${r.status})`);
  const summary = JSON.parse(readFileSync(report, 'utf8')).summary;
  if (summary.tests.total === 0) fail3('the shard reports hold no test');
  if (summary.verdict === 'inconclusive') fail3(`inconclusive: ${summary.tests.inconclusive} tests got no usable answer${summary.stop ? `; stopped: ${summary.stop.reason}` : ''} (docs/transport.md)`);
  return summary.verdict === 'pass' ? 0 : 1;
}

process.exit(main());
