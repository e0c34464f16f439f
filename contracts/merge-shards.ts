// npm run conformance:merge -- DIR
// Merges the blob reports of a sharded conformance run (one .zip per shard, all in DIR) into one set
// of reports: conformance.json, junit.xml, observations.json and Playwright's HTML report, as if the
// suite had run on one machine. The verdict is the merged one, so a CI job can gate on this exit code
// while each shard's own job only produces its blob. Exit codes: 0 pass, 1 contract failure, 3 nothing
// to merge, the merge failed, or tests were left inconclusive by the network (docs/transport.md).
import { readConformance } from '../core/formats.ts';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fail, parseCommand, runCommand, integerOption } from '../core/command.ts';
import { ROOT, loadConfig } from '../core/config.ts';

const HELP = `usage: npm run conformance:merge -- [--expect-shards N] DIR

Merges the Playwright blob reports in DIR (one per shard, from
  npm run conformance -- --shard I/N --reporter=list,blob,./contracts/support/reporter.ts
with PLAYWRIGHT_BLOB_OUTPUT_DIR set per shard) into reports/ (CONSOLE_REPORTS_DIR): conformance.json,
junit.xml, observations.json, playwright-report/. Set CONSOLE_STRICT=1 when the shards ran --strict.

  --expect-shards N  exit 3 unless DIR holds exactly N blob reports: a shard that could not run must
                     not leave a merged PASS over part of the suite

exit codes: 0 pass, 1 contract failure, 3 nothing to merge or the merge failed`;

const fail3 = (reason: string): never => fail('conformance:merge', reason);

/** Merges the blob reports in `folder`; resolves to the exit code of the merged verdict. */
function mergeShards(folder: string, expected: number | undefined): number {
  const dir = resolve(folder);
  if (!existsSync(dir)) fail3(`no folder ${dir}`);
  const blobs = readdirSync(dir).filter((f) => f.endsWith('.zip'));
  if (blobs.length === 0) fail3(`no blob report (.zip) in ${dir}`);
  if (expected !== undefined && blobs.length !== expected) fail3(`expected ${expected} shard reports in ${dir}, found ${blobs.length}: a shard did not finish`);
  const config = loadConfig();
  const report = join(config.reportsDir, 'conformance.json');
  rmSync(report, { force: true });
  console.log(`conformance:merge: ${blobs.length} shard report(s) from ${relative(process.cwd(), dir) || '.'}`);
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'merge-reports', '--config', join(ROOT, 'contracts/merge.config.ts'), dir],
    { cwd: ROOT, stdio: 'inherit' },
  );
  if (!existsSync(report)) fail3(`the merge wrote no conformance.json (playwright merge-reports exit ${r.status})`);
  const summary = readConformance(dirname(report))!.summary;
  if (summary.tests.total === 0) fail3('the shard reports hold no test');
  if (summary.verdict === 'inconclusive')
    fail3(
      `inconclusive: ${summary.tests.inconclusive} tests got no usable answer${summary.stop ? `; stopped: ${summary.stop.reason}` : ''} (docs/transport.md)`,
    );
  return summary.verdict === 'pass' ? 0 : 1;
}

const { values, positionals } = parseCommand({ name: 'conformance:merge', help: HELP, positionals: true, options: { 'expect-shards': { type: 'string' } } });
const expected =
  values['expect-shards'] === undefined ? undefined : integerOption('conformance:merge', '--expect-shards', values['expect-shards'], { min: 1, fallback: 1 });
if (positionals.length !== 1) fail3(`expected one folder of blob reports, got ${JSON.stringify(positionals)} (see --help)`);
runCommand('conformance:merge', () => mergeShards(positionals[0], expected));
