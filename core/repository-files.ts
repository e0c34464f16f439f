// The files of the repository, for the tests that read the project's own sources (names, imports, the
// environment rule, spec literals, docs' paths). They ask git which files it holds or would take (tracked,
// and new files not ignored), so what runs write meanwhile is never read: the load runner writes a copy of
// its processor under load/data/run-*/ and removes it, while these tests run beside it.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './config.ts';

// Without git (a copied tree) the walk leaves out what .gitignore leaves out for the project's own runs.
const NOT_HELD = new Set(['node_modules', 'reports', 'test-results', 'playwright-report', 'blob-report']);
const RUNS_FOLDER = 'load/data';

function walked(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (e.name.startsWith('.') || NOT_HELD.has(e.name)) continue;
    const path = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (dir !== RUNS_FOLDER) out.push(...walked(root, path));
    } else out.push(path);
  }
  return out;
}

/** Every file of the repository at `root`, as a path from it with forward slashes, sorted. */
export function repositoryFiles(root = ROOT): string[] {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  // A root inside another repository (an installed package) is not a repository of its own.
  const top = git('rev-parse', '--show-toplevel');
  const ownRepository = top.status === 0 && realpathSync(top.stdout.trim()) === realpathSync(root);
  const listed = ownRepository ? git('ls-files', '--cached', '--others', '--exclude-standard', '-z') : undefined;
  const files = listed?.status === 0 ? listed.stdout.split('\0').filter((f) => f && existsSync(join(root, f))) : walked(root);
  return [...new Set(files)].sort();
}

/** Every folder that holds a file of the repository, as a path from the root, sorted. */
export function repositoryFolders(files: string[]): string[] {
  const folders = new Set<string>();
  for (const file of files) for (let i = file.indexOf('/'); i > 0; i = file.indexOf('/', i + 1)) folders.add(file.slice(0, i));
  return [...folders].sort();
}
