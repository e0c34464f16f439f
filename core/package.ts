// What this suite is (its version, the spec it checks, the commit it was made from) and where the
// programs its commands start are. Resolved as Node resolves packages, not from a node_modules folder
// under the repository: installed from npm, the suite's dependencies sit beside it in the user's
// node_modules (or npx's cache), not inside it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './config.ts';

const require = createRequire(import.meta.url);

/** tsx's loader, for `node --import` (one process, no tsx launcher in between). */
export const TSX_LOADER = pathToFileURL(require.resolve('tsx')).href;

/**
 * Whether this Node runs the suite's TypeScript files itself: Node 24 strips the types (the files use
 * only erasable syntax, which tsconfig's erasableSyntaxOnly holds), and a process then starts on about
 * 60% of the CPU it takes through tsx's loader (docs/measurements.md). Node refuses to strip types under
 * a node_modules folder, where the suite sits when installed from npm, and Node 22 still calls it
 * experimental on every start: there, and on older Node, tsx's loader.
 */
export function nodeStripsTypes(version = process.versions.node, features: object = process.features, root = ROOT): boolean {
  const typescript = (features as { typescript?: unknown }).typescript;
  return Number(version.split('.')[0]) >= 24 && Boolean(typescript) && !root.split(/[\\/]/).includes('node_modules');
}

/** The Node options before one of the suite's TypeScript files on a `node` command line: none, or tsx's loader. */
export const TS_NODE_OPTIONS: readonly string[] = nodeStripsTypes() ? [] : ['--import', TSX_LOADER];
/** Playwright's command line (`playwright test`). */
export const PLAYWRIGHT_CLI = require.resolve('@playwright/test/cli');

/** The folder of a dependency, found where Node finds it (for a program it ships outside its exports). */
export function dependencyDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

/** The version in a dependency's package.json. */
export function dependencyVersion(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}

/** This package's name and version. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Written by `npm pack` (scripts/build-info.mjs, prepack): the commit the package was made from. */
export const BUILD_INFO = join(ROOT, 'build-info.json');

/**
 * The commit the suite runs from: the one recorded when the package was packed; in a clone, its HEAD
 * (with "+changes" when tracked files differ); else "unknown". Never `git` outside a clone of this
 * repository: installed in a server's repository, git would answer with that repository's commit.
 */
export function packageCommit(): string {
  if (existsSync(BUILD_INFO)) return (JSON.parse(readFileSync(BUILD_INFO, 'utf8')) as { commit?: string }).commit || 'unknown';
  if (!existsSync(join(ROOT, '.git'))) return 'unknown';
  const git = (...args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return 'unknown';
  const dirty = git('status', '--porcelain', '--untracked-files=no').stdout.trim() ? '+changes' : '';
  return `${head.stdout.trim()}${dirty}`;
}
