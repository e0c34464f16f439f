// Where a clause is checked (npm run clauses:where): for each clause, its text in the spec, the tests
// that name it (contracts/clauses.yaml, checkedBy) and where each is, the lines that assert it (a
// `t.clause`/`checkAs` step or a shared check naming its id, or, for a clause a test names by prefix with
// clausesUnder, that line and the shared response-schema check that judges every field), and the faults
// that prove it (docs/clause-proof.json). Read from the files each time: nothing here can go stale.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import { readClauseProofFile } from '../core/formats.ts';
import { globRegExp } from '../core/waivers.ts';
import type { Clause } from './support/clauses.ts';

export interface Place {
  /** Repository-relative path and 1-based line. */
  file: string;
  line: number;
  /** The line itself, trimmed. */
  text: string;
}

export interface ClauseWhere {
  id: string;
  level: Clause['level'];
  section: string;
  text: string;
  tests: { title: string; at?: Place }[];
  /** Lines that assert the clause by its id: a `t.clause` step, a `checkAs` check, a shared check's constant. */
  asserted: Place[];
  /** Other lines that name its id: the tests' `checks(...)` (a test naming one clause asserts it as a whole). */
  named: Place[];
  /** For a clause named by prefix (clausesUnder): those lines, and the shared schema check that judges it. */
  byPrefix: Place[];
  /** Where the contract (openapi.yaml) ties the clause to a schema constraint (`x-clauses`). */
  contract: Place[];
  provedBy: string[];
}

/** The source files where checks live: the spec files and their support (not their unit tests). */
function sources(root: string): { file: string; lines: string[] }[] {
  const dirs = ['contracts/conformance', 'contracts/support'];
  return dirs.flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .sort()
      .map((f) => ({ file: `${dir}/${f}`, lines: readFileSync(join(root, dir, f), 'utf8').split('\n') })),
  );
}

const placesOf = (files: { file: string; lines: string[] }[], match: (line: string) => boolean): Place[] =>
  files.flatMap(({ file, lines }) => lines.flatMap((l, i) => (match(l) ? [{ file, line: i + 1, text: l.trim() }] : [])));

/** The clauses whose id is `pattern`, or matches it as a glob (`*` any characters). */
export function matching(catalogue: readonly Clause[], pattern: string): Clause[] {
  const re = globRegExp(pattern);
  return catalogue.filter((c) => re.test(c.id));
}

/** Where each of `clauses` is checked and proved, read from the tree at `root`. */
export function whereOf(clauses: readonly Clause[], root = ROOT): ClauseWhere[] {
  const files = sources(root);
  const specs = files.filter((f) => f.file.startsWith('contracts/conformance/'));
  const proof = readClauseProofFile(join(root, 'docs/clause-proof.json'))?.clauses ?? [];
  // Indexes made in one pass over the files: each quoted clause-like id, each clausesUnder prefix, each x-clauses id.
  const quoted = new Map<string, Place[]>();
  const prefixes: { prefix: string; place: Place }[] = [];
  for (const p of placesOf(files, (l) => !/^\s*(\/\/|\*)/.test(l))) {
    for (const m of new Set([...p.text.matchAll(/['"]([a-z][\w]*(?:\.[\w]+)+)['"]/g)].map((x) => x[1]))) quoted.set(m, [...(quoted.get(m) ?? []), p]);
    for (const m of p.text.matchAll(/clausesUnder\('([^']+)'\)/g)) prefixes.push({ prefix: m[1], place: p });
  }
  const contract = new Map<string, Place[]>();
  readFileSync(join(root, 'contracts/openapi.yaml'), 'utf8')
    .split('\n')
    .forEach((l, i) => {
      const ids = /x-clauses:\s*\[([^\]]*)\]/
        .exec(l)?.[1]
        .split(',')
        .map((x) => x.trim());
      for (const id of ids ?? []) contract.set(id, [...(contract.get(id) ?? []), { file: 'contracts/openapi.yaml', line: i + 1, text: l.trim() }]);
    });
  const titles = new Map<string, Place | undefined>();
  const titleAt = (title: string) => {
    if (!titles.has(title)) titles.set(title, placesOf(specs, (l) => l.includes(title))[0]);
    return titles.get(title);
  };
  // The line of the shared response-schema check (support/checks.ts): every field clause is judged there.
  const schemaCheck = placesOf(
    files.filter((f) => f.file === 'contracts/support/checks.ts'),
    (l) => l.includes('checkAs(blamed, schemaCheck)'),
  );
  const isStep = (p: Place) => /\b(t\.clause|checkAs|clauseStep)\(/.test(p.text) || !/checks\(|^'[^']*',?$/.test(p.text);
  return clauses.map((c) => {
    const naming = quoted.get(c.id) ?? [];
    const byPrefix = prefixes.filter((p) => c.id.startsWith(p.prefix)).map((p) => p.place);
    return {
      id: c.id,
      level: c.level,
      section: c.section,
      text: c.text,
      tests: c.checkedBy.map((title) => ({ title, at: titleAt(title) })),
      asserted: naming.filter(isStep),
      named: naming.filter((p) => !isStep(p)),
      byPrefix: byPrefix.length > 0 ? [...byPrefix, ...schemaCheck] : [],
      contract: contract.get(c.id) ?? [],
      provedBy: proof.find((p) => p.id === c.id)?.provedBy ?? [],
    };
  });
}

const at = (p: Place) => `${p.file}:${p.line}`;
const short = (text: string) => (text.length > 110 ? `${text.slice(0, 107)}...` : text);

/** One clause as the command prints it. */
export function shown(w: ClauseWhere): string {
  const out = [`${w.id} (${w.level}, spec ${w.section})`, `  spec: "${w.text.trim().replace(/\s+/g, ' ')}"`];
  if (w.tests.length === 0) out.push('  tests: none names it');
  for (const t of w.tests) out.push(`  test: ${t.title}${t.at ? `  (${at(t.at)})` : ''}`);
  for (const p of w.named) out.push(`  named: ${at(p)}  ${short(p.text)}`);
  for (const p of w.asserted) out.push(`  asserted: ${at(p)}  ${short(p.text)}`);
  for (const p of w.byPrefix) out.push(`  by prefix: ${at(p)}  ${short(p.text)}`);
  for (const p of w.contract) out.push(`  contract: ${at(p)}  (x-clauses)`);
  if (w.asserted.length === 0 && w.byPrefix.length === 0 && w.tests.length > 0)
    out.push('  asserted: by the test as a whole (no step of its own: its failures fall on the clauses it names)');
  out.push(
    w.provedBy.length
      ? `  proved by: ${w.provedBy.length <= 6 ? w.provedBy.join(', ') : `${w.provedBy.slice(0, 5).join(', ')} and ${w.provedBy.length - 5} more`}`
      : '  proved by: no fault in docs/clause-proof.json',
  );
  return out.join('\n');
}
