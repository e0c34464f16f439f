// Every name the project exports is defined in one module. Two definitions of one name (a type and a
// constant, two classes, two interfaces) make a reader, and an editor's auto-import, take one for the
// other; where they mean one thing, one imports the other, and where they do not, their names say which.
// Read with the TypeScript parser, not a pattern: only the top-level statements a module exports count,
// not text that merely looks like one (a template string writing a module's source, a comment).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT } from './config.ts';
import { repositoryFiles } from './repository-files.ts';

/** Every .ts, .mts and .mjs file of the repository (declaration files included). */
const sourceFiles = () => repositoryFiles().filter((f) => /\.(ts|mts|mjs)$/.test(f));

/**
 * The module a file defines: a declaration file (`x.d.mts`, `x.d.ts`) declares the types of the
 * JavaScript beside it (`x.mjs`, `x.js`), so the two are one module.
 */
export function moduleOf(file: string): string {
  return file.replace(/\.d\.(m?)ts$/, '.$1js');
}

const hasExport = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const isDefault = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
}

/** The names a top-level statement declares (functions, variables, classes, types, interfaces, enums, namespaces). */
function declared(statement: ts.Statement): string[] {
  if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.flatMap((d) => bindingNames(d.name));
  if (
    (ts.isFunctionDeclaration(statement) ||
      ts.isClassDeclaration(statement) ||
      ts.isInterfaceDeclaration(statement) ||
      ts.isTypeAliasDeclaration(statement) ||
      ts.isEnumDeclaration(statement) ||
      ts.isModuleDeclaration(statement)) &&
    statement.name &&
    ts.isIdentifier(statement.name)
  )
    return [statement.name.text];
  return [];
}

/**
 * The names a module's source defines and exports: each top-level declaration with `export`, and a
 * local declaration exported by name (`export { x }`, `export { x as y }`). A default export has no
 * name of its own to clash; a re-export (`export { x } from`, `export *`, an imported binding exported
 * again) defines nothing.
 */
export function exportedNames(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, file.endsWith('.mjs') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const names = new Set<string>();
  const local = new Set(sf.statements.flatMap(declared));
  for (const s of sf.statements) {
    if (hasExport(s) && !isDefault(s)) for (const name of declared(s)) names.add(name);
    if (ts.isExportDeclaration(s) && !s.moduleSpecifier && s.exportClause && ts.isNamedExports(s.exportClause))
      for (const e of s.exportClause.elements) if (local.has((e.propertyName ?? e.name).text) && e.name.text !== 'default') names.add(e.name.text);
  }
  return [...names];
}

/**
 * The exported names defined in more than one module: `name -> files`, one file a module (the
 * JavaScript rather than its declaration file), names and files sorted.
 */
export function duplicateExports(files: { file: string; source: string }[]): Map<string, string[]> {
  const byName = new Map<string, Map<string, string>>();
  for (const { file, source } of files)
    for (const name of exportedNames(file, source)) {
      const modules = byName.get(name) ?? new Map<string, string>();
      const module = moduleOf(file);
      if (!modules.has(module) || modules.get(module) !== module) modules.set(module, file);
      byName.set(name, modules);
    }
  return new Map(
    [...byName]
      .filter(([, modules]) => modules.size > 1)
      .map(([name, modules]) => [name, [...modules.values()].sort()] as [string, string[]])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

test('exportedNames: every kind of declaration, not template text, default exports or re-exports', () => {
  const source = [
    'export type T = 1;',
    'export interface I {}',
    'export class C {}',
    'export const K = 1, { a, b: [c] } = obj;',
    'export let L = 2;',
    'export async function* f() {}',
    'export enum E { A }',
    'export declare namespace N {}',
    'export default function dflt() {}',
    "export { x } from './x.ts';",
    "export * from './y.ts';",
    "import { imported } from './z.ts';",
    'const kept = 1;',
    'export { kept as renamed, imported };',
    'const src = `export const SPEC_LIMITS = 1;`;',
    '// export const COMMENTED = 1;',
    'const notExported = 2;',
  ].join('\n');
  assert.deepEqual(exportedNames('a.ts', source).sort(), ['C', 'E', 'I', 'K', 'L', 'N', 'T', 'a', 'c', 'f', 'renamed']);
  assert.deepEqual(exportedNames('a.mjs', 'export const ROOT = 1;\nexport function g() {}\n'), ['ROOT', 'g']);
});

test('duplicateExports: a type, const, class or interface defined twice; a declaration file and its JavaScript are one module', () => {
  const shared = duplicateExports([
    { file: 'a.ts', source: 'export type Verdict = 1;\nexport const LIMIT = 1;\nexport class Store {}\nexport interface Options {}\nexport const only = 1;' },
    { file: 'b.ts', source: 'export interface Verdict {}\nexport let LIMIT = 2;\nexport class Store {}\nexport type Options = {};' },
    { file: 'c.ts', source: "export { only } from './a.ts';\nconst text = `export const only = 2;`;" },
    { file: 'tiers.mjs', source: 'export const ROOT = 1;' },
    { file: 'tiers.d.mts', source: 'export const ROOT: number;' },
  ]);
  assert.deepEqual(Object.fromEntries(shared), {
    LIMIT: ['a.ts', 'b.ts'],
    Options: ['a.ts', 'b.ts'],
    Store: ['a.ts', 'b.ts'],
    Verdict: ['a.ts', 'b.ts'],
  });
  const twice = duplicateExports([
    { file: 'tiers.d.mts', source: 'export const ROOT: string;' },
    { file: 'config.ts', source: 'export const ROOT = 1;' },
    { file: 'tiers.mjs', source: 'export const ROOT = 1;' },
  ]);
  assert.deepEqual(Object.fromEntries(twice), { ROOT: ['config.ts', 'tiers.mjs'] });
});

test('no exported name is defined in two modules', () => {
  const files = sourceFiles().map((file) => ({ file, source: readFileSync(join(ROOT, file), 'utf8') }));
  assert.ok(files.length > 300, `only ${files.length} source files found: the scan is not reading the sources`);
  // Each duplicate as `name: file, file`.
  assert.deepEqual(
    [...duplicateExports(files)].map(([name, at]) => `${name}: ${at.join(', ')}`),
    [],
  );
});
