// Where a clause is checked (npm run clauses:where): for each clause, the spec's lines that state it
// (the catalogue's text found in contracts/spec/console-v1.md, with the table or list a line ending in a
// colon introduces), the tests that name it (contracts/clauses.yaml, checkedBy) and where each is, the
// lines that assert it (a `t.clause`/`checkAs` step or a shared check naming its id, or, for a clause a
// test names by prefix with clausesUnder, that line and the shared response-schema check that judges
// every field), the faults aimed at it (the reference's entries naming it, given by the caller) and
// those that prove it (docs/clause-proof.json), an aimed fault that does not fail it flagged. Read from
// the files each time: nothing here can go stale.
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

/**
 * Whether a line of a spec file writes the test title `title`: as text, or as a template literal whose
 * values come from the contract's facts (a title that states a limit or a value is built from them, so
 * that a revision of the spec renames it): each `${...}` stands for the text the run gave it.
 */
export function titleIn(line: string, title: string): boolean {
  if (line.includes(title)) return true;
  for (const [, body] of line.matchAll(/`((?:[^`\\]|\\.)*)`/g)) {
    if (!body.includes('${')) continue;
    const parts = body.split(/\$\{[^}]*\}/).map((p) => p.replace(/[.*+?^$()|[\]{}\\]/g, '\\$&'));
    if (new RegExp(`^${parts.join('.+?')}$`).test(title)) return true;
  }
  return false;
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
  /** The spec's lines that state it, from where the catalogue's text is found; undefined when the text is the catalogue's own words. */
  spec?: { at: Place; lines: string[] };
  provedBy: string[];
  /** The faults whose entry names this clause, each with what the proof map's run of it did to the clause. */
  aimed: AimedFault[];
}

/** A fault aimed at a clause (its entry's `clause`) and whether the proof map's run of it fails that clause. */
export interface AimedFault {
  name: string;
  proof: 'fails it' | 'does not fail it' | 'not in the proof map';
  /** The clauses its run failed instead, when it does not fail its own. */
  failedInstead?: string[];
}

const SPEC = 'contracts/spec/console-v1.md';
/** Lines shown of a table or list a stating line introduces. */
const BLOCK_LINES = 8;

/**
 * The spec's lines that state `text` (white space normalised), searched in its section first: the lines
 * the text spans, whole; a heading is never the statement (the paragraph under it is), and a line ending
 * in a colon introduces the table or list after it, which is shown too.
 */
export function statementOf(specText: string, section: string, text: string): { at: Place; lines: string[] } | undefined {
  const lines = specText.split('\n');
  const norm = (x: string) => x.replace(/\s+/g, ' ').trim();
  const wanted = norm(text);
  if (wanted.length === 0) return undefined;
  const heading = lines.findIndex((l) => new RegExp(`^#+ ${section.replace(/\./g, '\\.')}(\\s|$)`).test(l));
  const end =
    heading < 0 ? -1 : lines.findIndex((l, i) => i > heading && /^#+ /.test(l) && l.match(/^#+/)![0].length <= lines[heading].match(/^#+/)![0].length);
  const ranges: [number, number][] =
    heading < 0
      ? [[0, lines.length]]
      : [
          [heading, end < 0 ? lines.length : end],
          [0, lines.length],
        ];
  for (const [from, to] of ranges) {
    // The lines joined with spaces, each line's start offset kept, so a text that runs over a line break is found.
    let joined = '';
    const starts: number[] = [];
    for (let i = from; i < to; i++) {
      starts.push(joined.length);
      joined += `${norm(lines[i])} `;
    }
    const at = joined.indexOf(wanted);
    if (at < 0) continue;
    const lineAt = (offset: number) => from + starts.filter((s) => s <= offset).length - 1;
    let first = lineAt(at);
    let last = lineAt(at + wanted.length - 1);
    if (/^#+ /.test(lines[first])) {
      // A heading names what follows: the statement is the paragraph under it.
      first = lines.findIndex((l, i) => i > last && l.trim() !== '');
      if (first < 0) return undefined;
      last = first;
      while (last + 1 < lines.length && lines[last + 1].trim() !== '' && !/^#+ /.test(lines[last + 1])) last++;
    }
    const out = lines.slice(first, last + 1).map((l) => l.trimEnd());
    if (lines[last].trimEnd().endsWith(':')) {
      const start = lines.findIndex((l, i) => i > last && l.trim() !== '');
      let stop = start;
      while (stop >= 0 && stop + 1 < lines.length && lines[stop + 1].trim() !== '') stop++;
      if (start >= 0) {
        const block = lines.slice(start, stop + 1);
        out.push(...block.slice(0, BLOCK_LINES), ...(block.length > BLOCK_LINES ? [`... (${block.length - BLOCK_LINES} more lines)`] : []));
      }
    }
    return { at: { file: SPEC, line: first + 1, text: lines[first].trim() }, lines: out };
  }
  return undefined;
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

/**
 * Where each of `clauses` is checked and proved, read from the tree at `root`. `aimedAt` is each clause's
 * faults by name, from the reference's own list (`serve --list-faults --generated`: the command reads it;
 * this module starts no process).
 */
export function whereOf(clauses: readonly Clause[], aimedAt: ReadonlyMap<string, readonly string[]> = new Map(), root = ROOT): ClauseWhere[] {
  const files = sources(root);
  const specs = files.filter((f) => f.file.startsWith('contracts/conformance/'));
  const map = readClauseProofFile(join(root, 'docs/clause-proof.json'));
  const proof = map?.clauses ?? [];
  const runs = new Map((map?.faults ?? []).map((f) => [f.name, f.fails]));
  const specText = readFileSync(join(root, SPEC), 'utf8');
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
    if (!titles.has(title)) titles.set(title, placesOf(specs, (l) => titleIn(l, title))[0]);
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
      spec: statementOf(specText, String(c.section), c.text),
      provedBy: proof.find((p) => p.id === c.id)?.provedBy ?? [],
      aimed: (aimedAt.get(c.id) ?? []).map((name): AimedFault => {
        const fails = runs.get(name);
        if (!fails) return { name, proof: 'not in the proof map' };
        return fails.includes(c.id) ? { name, proof: 'fails it' } : { name, proof: 'does not fail it', failedInstead: fails };
      }),
    };
  });
}

const at = (p: Place) => `${p.file}:${p.line}`;
const short = (text: string) => (text.length > 110 ? `${text.slice(0, 107)}...` : text);

const list = (names: readonly string[]) => (names.length <= 6 ? names.join(', ') : `${names.slice(0, 5).join(', ')} and ${names.length - 5} more`);

/** One clause as the command prints it. */
export function shown(w: ClauseWhere): string {
  const out = [`${w.id} (${w.level}, spec ${w.section})`];
  if (w.spec) out.push(`  spec: ${at(w.spec.at)}`, ...w.spec.lines.map((l) => `    ${l}`));
  else out.push(`  clause: "${w.text.trim().replace(/\s+/g, ' ')}" (the catalogue's words: no sentence of the spec says it so)`);
  if (w.tests.length === 0) out.push('  tests: none names it');
  for (const t of w.tests) out.push(`  test: ${t.title}${t.at ? `  (${at(t.at)})` : ''}`);
  for (const p of w.named) out.push(`  named: ${at(p)}  ${short(p.text)}`);
  for (const p of w.asserted) out.push(`  asserted: ${at(p)}  ${short(p.text)}`);
  for (const p of w.byPrefix) out.push(`  by prefix: ${at(p)}  ${short(p.text)}`);
  for (const p of w.contract) out.push(`  contract: ${at(p)}  (x-clauses)`);
  if (w.asserted.length === 0 && w.byPrefix.length === 0 && w.tests.length > 0)
    out.push('  asserted: by the test as a whole (no step of its own: its failures fall on the clauses it names)');
  if (w.aimed.length === 0) out.push('  aimed at it: no fault of the reference names it');
  for (const f of w.aimed)
    out.push(
      f.proof === 'does not fail it'
        ? `  aimed at it: ${f.name}  DOES NOT FAIL IT (its run in docs/clause-proof.json failed ${f.failedInstead!.length ? list(f.failedInstead!) : 'nothing'})`
        : `  aimed at it: ${f.name}  (${f.proof === 'fails it' ? 'fails it' : 'not in docs/clause-proof.json: npm run clauses:proof -- --only ' + f.name})`,
    );
  out.push(w.provedBy.length ? `  proved by: ${list(w.provedBy)}` : '  proved by: no fault in docs/clause-proof.json');
  return out.join('\n');
}
