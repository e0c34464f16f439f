import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repositoryFiles, repositoryFolders } from './repository-files.ts';

function tree(root: string, files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

const FILES = {
  '.gitignore': 'load/data/*\n!load/data/validators.d.ts\nreports/*\n',
  'core/a.ts': 'export const a = 1;\n',
  'load/data/validators.d.ts': 'export declare const v: number;\n',
  // What a run writes while the tests read the sources.
  'load/data/run-x/processor-paging.mjs': 'export const arrive = 1;\n',
  'reports/run/report.json': '{}',
  'node_modules/p/index.js': '',
};

test('repositoryFiles: what git holds or would take, not what runs write; a deleted file is not listed', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'repo-files-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  tree(root, { ...FILES, '.gitignore': `${FILES['.gitignore']}node_modules/\n`, 'core/new.ts': '' });
  const git = (...args: string[]) => assert.equal(spawnSync('git', args, { cwd: root }).status, 0, `git ${args.join(' ')}`);
  git('init', '-q');
  git('add', '.gitignore', 'core/a.ts', 'load/data/validators.d.ts');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'x');
  rmSync(join(root, 'core/a.ts'));
  assert.deepEqual(repositoryFiles(root), ['.gitignore', 'core/new.ts', 'load/data/validators.d.ts']);
});

test('repositoryFiles: without git, the walk leaves out dot folders, installed packages, reports and the runs under load/data', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'repo-files-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  tree(root, { ...FILES, '.tools/x/y.ts': '' });
  assert.deepEqual(repositoryFiles(root), ['core/a.ts', 'load/data/validators.d.ts']);
});

test('repositoryFolders: every folder on the way to a file, once', () => {
  assert.deepEqual(repositoryFolders(['a/b/c.ts', 'a/d.ts', 'e.md']), ['a', 'a/b']);
});
