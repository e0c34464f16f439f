// npm run reliability:crash / reliability:concurrency: run one of the reliability tests on its own
// (they also run in test:unit). A wrapper rather than `tsx --test FILE` in package.json, because
// node's test runner takes any extra argument, --help included, for a file to run.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fail, parseCommand } from '../../core/command.ts';
import { ROOT } from '../../core/config.ts';

const TESTS: Record<string, string> = {
  crash: 'kill -9 the reference server (--db FILE) under write load, restart it: no acknowledged write lost, integrity_check ok',
  concurrency: '50 concurrent add-rules calls on one gate and 50 concurrent updates of one metric: no rule lost, one update wins, no 5xx',
};

const EPILOGUE = `Starts its own reference server on a free loopback port; prints its figures. No options.

Environment: none read.
Exit 0 when it holds, 1 when not, 3 bad arguments.`;

const argv = process.argv.slice(2);
// The test's name comes first (package.json gives it); --help then describes that test.
const name = argv[0] !== undefined && argv[0] in TESTS ? argv[0] : undefined;
const help = name
  ? `usage: npm run reliability:${name}\n\n${TESTS[name]}.\n${EPILOGUE}`
  : `usage: npm run reliability:<test>   (tsx harness/reliability/run.ts <test>)\n\n${Object.entries(TESTS)
      .map(([n, what]) => `  ${n.padEnd(12)} ${what}`)
      .join('\n')}\n\n${EPILOGUE}`;
const command = name ? `reliability:${name}` : 'reliability';
const { positionals } = parseCommand({ name: command, help, options: {}, positionals: true }, name ? argv.slice(1) : argv);
if (!name) fail(command, `the test is one of ${Object.keys(TESTS).join(', ')}, got ${JSON.stringify(positionals[0] ?? '')}`);
if (positionals.length > 0) fail(command, `takes no arguments, got ${positionals.join(' ')} (see --help)`);
const file = join(ROOT, 'reference', 'reliability', `${name}.test.ts`);
const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', file], { stdio: 'inherit', cwd: ROOT });
process.exit(run.status ?? 1);
