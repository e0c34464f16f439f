// npm run docs:update -- [--figures] [--skip-screenshots] [verify options]
// Rewrites the figures the docs state about the project from their sources (scripts/lib/doc-figures.ts),
// then remakes the sample screens of README.md and docs/verify.md from a real `npm run verify` against
// the bundled reference server, and the report screenshots in docs/ (npm run report:screenshots), so
// that no figure or screen in the docs is edited by hand (docs.test.ts checks the rest).
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fail, parseKnown, runCommand } from '../core/command.ts';
import { ROOT, targetSetInEnv } from '../core/config.ts';
import { TS_NODE_OPTIONS } from '../core/package.ts';
import { DATED, figures, withFigures } from './lib/doc-figures.ts';
import { verdictScreenIn, withSample } from './lib/doc-samples.ts';

const NAME = 'docs:update';
const HELP = `usage: npm run docs:update -- [--figures] [--skip-screenshots] [verify options]

Rewrites every figure the docs state about the project (clauses by level, faults, legal variants,
npm test's stages) from its source; then runs npm run verify (options passed on) against the bundled reference server, its output shown as it
runs, and writes its verdict screen into the marked samples of README.md and docs/verify.md; then
remakes the report screenshots in docs/ (npm run report:screenshots: two more real runs and Chromium).

  --figures            the figures only: no verify run, no screenshots (a second)
  --skip-screenshots   leave the screenshots as they are
  --help               this text

Refuses to run with CONSOLE_BASE_URL set (the samples are of the reference server). Exit 0 done,
3 verify printed no verdict or the screenshots failed; verify's own verdict (a FAIL) is written as it is.`;

const SAMPLE = 'verify-verdict';
const DOCS = ['README.md', 'docs/verify.md'];

const { values, rest } = parseKnown({ name: NAME, help: HELP, options: { figures: { type: 'boolean' }, 'skip-screenshots': { type: 'boolean' } } });

/** Every document of the repository whose figures are of the present (doc-figures.ts, DATED). */
function documents(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', 'reference/README.md', ...docs].filter((d) => !DATED.has(d));
}

runCommand(NAME, async () => {
  const all = figures();
  for (const doc of documents()) {
    const path = join(ROOT, doc);
    const before = readFileSync(path, 'utf8');
    const after = withFigures(before, all);
    if (after !== before) {
      writeFileSync(path, after);
      console.log(`${NAME}: ${doc}: figures rewritten`);
    }
  }
  if (values.figures) return 0;
  if (targetSetInEnv()) fail(NAME, 'CONSOLE_BASE_URL is set: the samples are of the bundled reference server; unset it');
  const output = await verify(rest);
  const screen = verdictScreenIn(output);
  if (!screen) fail(NAME, 'verify printed no verdict screen (see its output above)');
  for (const doc of DOCS) {
    const path = join(ROOT, doc);
    const before = readFileSync(path, 'utf8');
    const after = withSample(before, SAMPLE, screen);
    if (after === before && !before.includes(`<!-- sample ${SAMPLE}:`)) fail(NAME, `${doc} has no sample ${SAMPLE}`);
    writeFileSync(path, after);
    console.log(`${NAME}: ${doc}: sample ${SAMPLE} ${after === before ? 'unchanged' : 'rewritten'}`);
  }
  if (values['skip-screenshots']) return 0;
  const shots = spawnSync('npm', ['run', 'report:screenshots'], { cwd: ROOT, stdio: 'inherit' });
  if (shots.status !== 0) fail(NAME, `npm run report:screenshots exited ${shots.status}`);
  console.log(`${NAME}: docs/report-*.png remade`);
  return 0;
});

/** verify's output, shown as it comes and kept. */
function verify(args: string[]): Promise<string> {
  return new Promise((done, failed) => {
    const child = spawn(process.execPath, [...TS_NODE_OPTIONS, join(ROOT, 'scripts/verify.ts'), ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
      process.stdout.write(chunk);
    });
    child.on('error', failed);
    child.on('close', () => done(out));
  });
}
