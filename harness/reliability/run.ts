// npm run reliability:crash / reliability:concurrency: run one of the reliability tests on its own
// (they also run in test:unit). A wrapper rather than `tsx --test FILE` in package.json, because
// node's test runner takes any extra argument, --help included, for a file to run.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../core/config.ts';

const TESTS: Record<string, string> = {
  crash: 'kill -9 the reference server (--db FILE) under write load, restart it: no acknowledged write lost, integrity_check ok',
  concurrency: '50 concurrent add-rules calls on one gate and 50 concurrent updates of one metric: no rule lost, one update wins, no 5xx',
};

const [name, ...rest] = process.argv.slice(2);
if (!name || !(name in TESTS)) {
  console.error(`reliability: the test is one of ${Object.keys(TESTS).join(', ')}, got ${JSON.stringify(name ?? '')}`);
  process.exit(3);
}
if (rest.includes('--help') || rest.includes('-h')) {
  console.log(`usage: npm run reliability:${name}

${TESTS[name]}.
Starts its own reference server on a free loopback port; prints its figures; exit 0 when it holds, 1 when not.
No options.`);
  process.exit(0);
}
if (rest.length > 0) {
  console.error(`reliability:${name}: takes no options, got ${rest.join(' ')} (see --help)`);
  process.exit(3);
}
const file = join(ROOT, 'reference', 'reliability', `${name}.test.ts`);
const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', file], { stdio: 'inherit', cwd: ROOT });
process.exit(run.status ?? 1);
