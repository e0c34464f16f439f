// Keeps the mechanical part of contracts/clauses.yaml equal to the spec: each stated or open clause's
// `text` is the spec's words inside its `section`; when a revision changes those words (a bound, a
// message, a list of values), the clause follows to the new words and keeps its id (waivers, manifests,
// the history and reports name it); a statement of the spec that no clause quotes gets a clause of its
// own, uncovered until a test names it. A clause whose words are gone, with nothing in its section to
// follow, fails the build naming it and the nearest spec line: that is hand work (docs/spec-changes.md).
import { isMap, isSeq, type Document, type YAMLMap, type YAMLSeq } from 'yaml';
import type { ContractModel, Overlay } from './contract-model.ts';
import { type SpecLine, statementsOf } from './spec-document.ts';

export interface ClauseChange {
  kind: 'changed' | 'added';
  id: string;
  section: string;
  before?: string;
  after: string;
  line: number;
}

/** Quotes are compared with whitespace collapsed and backticks dropped: nothing else may differ. */
export const normalizeQuote = (s: string) => s.replace(/`/g, '').replace(/\s+/g, ' ').trim();

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A pattern of the clause's words in which what a revision changes may differ: a value in code (a
 * message, an allowed value) and a number (a bound). Matched on statements with whitespace collapsed.
 */
function wildcardPattern(text: string): RegExp {
  const parts = text.replace(/\s+/g, ' ').split('`');
  const source = parts.map((part, i) => (i % 2 === 1 ? '`[^`]+`' : escapeRegExp(part).replace(/ /g, '\\s+').replace(/\d+/g, '\\d+'))).join('');
  return new RegExp(source);
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** A table row's key (its first cell), so that a clause quoting a row follows the row whatever its other cells say. */
const rowKey = (text: string) => /^\|\s*([^|]+?)\s*\|/.exec(text.trim())?.[1];

/** Where a clause's words stand now: undefined when they stand unchanged (or nowhere: see `nearest`). */
function follow(text: string, statements: SpecLine[]): { text: string; line: number } | undefined {
  const plain = normalizeQuote(text);
  if (statements.some((s) => normalizeQuote(s.text).includes(plain))) return undefined;
  const unique = (found: { s: SpecLine; m: string | undefined }[]) => {
    const hits = found.filter((f) => f.m !== undefined);
    return hits.length === 1 ? { text: hits[0].m!, line: hits[0].s.line } : undefined;
  };
  // The same words with other values in code or other numbers.
  const pattern = wildcardPattern(text);
  const byPattern = unique(statements.map((s) => ({ s, m: pattern.exec(collapse(s.text))?.[0] })));
  if (byPattern) return byPattern;
  // A list of values in code after the same words ("One of `a`, `b`"), however many values it now holds.
  const lead = /^([^`]{6,})`/.exec(text)?.[1];
  if (lead) {
    const list = new RegExp(`${escapeRegExp(lead.replace(/\s+/g, ' ')).replace(/ /g, '\\s+')}(?:\`[^\`]+\`(?:,\\s*|\\s+or\\s+)?)+`);
    const byList = unique(statements.map((s) => ({ s, m: list.exec(collapse(s.text))?.[0].replace(/(,\s*|\s+or\s+)$/, '') })));
    if (byList) return byList;
  }
  // A whole table row, by its first cell.
  const key = rowKey(text);
  if (key) {
    const byRow = unique(statements.map((s) => ({ s, m: rowKey(s.text) === key ? collapse(s.text) : undefined })));
    if (byRow) return byRow;
  }
  return undefined;
}

/** The statement of `statements` sharing most words with `text`: named when a clause's words are gone. */
function nearest(text: string, statements: SpecLine[]): SpecLine | undefined {
  const words = new Set(normalizeQuote(text).toLowerCase().split(/\W+/).filter(Boolean));
  let best: SpecLine | undefined;
  let score = 0;
  for (const s of statements) {
    const shared = normalizeQuote(s.text)
      .toLowerCase()
      .split(/\W+/)
      .filter((w) => words.has(w)).length;
    if (shared > score) [best, score] = [s, shared];
  }
  return best;
}

const lowerCamel = (words: string) =>
  words
    .replace(/`/g, '')
    .replace(/[^A-Za-z0-9 ]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 4)
    .map((w, i) => (i === 0 ? w[0].toLowerCase() + w.slice(1) : w[0].toUpperCase() + w.slice(1)))
    .join('');

/** The sentences of a statement that each need a clause: every sentence saying "not shown" stands alone. */
function sentencesOf(line: SpecLine): SpecLine[] {
  if (!line.text.includes('not shown')) return [line];
  return line.text
    .split(/(?<=not shown\.)\s+/)
    .filter((s) => s.trim().length > 0)
    .map((text) => ({ line: line.line, text }));
}

/**
 * Brings the `text` and `section` of contracts/clauses.yaml (parsed as `doc`, edited in place) to the spec
 * of `model`, and adds a clause for every statement none quotes. Throws, naming the clause and the
 * nearest spec line, where a clause's words are gone from its section.
 */
export function syncClauses(doc: Document, model: ContractModel, overlay: Overlay): ClauseChange[] {
  const seq = doc.get('clauses') as YAMLSeq;
  if (!isSeq(seq)) throw new Error('contracts/clauses.yaml has no clauses list');
  const items = seq.items as YAMLMap[];
  const sections = new Map(model.document.sections.map((s) => [s.number, s]));
  const changes: ClauseChange[] = [];
  const lost: string[] = [];
  for (const item of items) {
    if (!isMap(item)) continue;
    const level = String(item.get('level'));
    if (level === 'inferred') continue;
    const id = String(item.get('id'));
    const sectionNumber = String(item.get('section'));
    const text = String(item.get('text'));
    const section = sections.get(sectionNumber);
    const statements = section ? [...statementsOf(section), { line: section.line, text: section.title }] : [];
    const moved = follow(text, statements);
    if (!moved) {
      if (!section || !statements.some((s) => normalizeQuote(s.text).includes(normalizeQuote(text)))) {
        const near = nearest(text, statements);
        lost.push(
          `${id} (section ${sectionNumber}) quotes words the spec no longer has: "${text}"${near ? `; nearest, spec line ${near.line}: "${near.text}"` : ''}`,
        );
      }
      continue;
    }
    item.set('text', moved.text);
    changes.push({ kind: 'changed', id, section: sectionNumber, before: text, after: moved.text, line: moved.line });
  }
  if (lost.length > 0)
    throw new Error(`contracts/clauses.yaml: ${lost.length} clause(s) no longer match the spec (remove or re-word them by hand):\n  ${lost.join('\n  ')}`);

  // Every statement of the spec is quoted by a clause, or is the document's framing (overlay).
  const quoted = items.filter((i) => isMap(i) && i.get('level') !== 'inferred').map((i) => normalizeQuote(String(i.get('text'))));
  const ids = new Set(items.map((i) => String(i.get('id'))));
  const framing = overlay.framing.map(normalizeQuote);
  for (const section of model.document.sections) {
    if (section.number === '0') continue;
    const op = model.operations.find((o) => o.section === section.number);
    for (const statement of statementsOf(section).flatMap(sentencesOf)) {
      const n = normalizeQuote(statement.text);
      if (framing.some((f) => n === f || (f.length >= 12 && f.endsWith(':') && n.startsWith(f)))) continue;
      if (quoted.some((q) => q.length >= 12 && n.includes(q))) continue;
      // A path quoted whole by a clause counts; a shorter quote counts when the statement is a path.
      if (quoted.includes(n)) continue;
      const level = statement.text.includes('not shown') ? 'open' : 'stated';
      const key = rowKey(statement.text);
      const family = overlay.clauseFamilies?.[section.number];
      let newIds: string[];
      if (family && key && level === 'stated') {
        // A field row: one clause per field it names, in the family the generic field checks read.
        newIds = key.split(',').map((f) => `${family}.field.${f.trim().replace(/`/g, '')}`);
      } else {
        const stem = op ? op.id : `section${section.number.replace(/\./g, 'x')}`;
        const name =
          op && statement.line === op.line ? 'path' : /^Response\b.*\bmessage `/.test(statement.text) ? 'message' : lowerCamel(key ?? statement.text);
        newIds = [`${stem}.${name || 'statement'}${level === 'open' ? 'NotShown' : ''}`];
      }
      quoted.push(n);
      for (let id of newIds) {
        for (let k = 2; ids.has(id); k++) id = `${newIds[0]}${k}`;
        ids.add(id);
        const entry = doc.createNode({
          id,
          section: section.number,
          level,
          text: statement.text,
          note: `Added by contracts:build from spec line ${statement.line}; its level is the build's first guess (stated unless "not shown"): confirm it${family && key ? '' : ', and name the clause in a test'}.`,
          checkedBy: [],
        });
        seq.items.push(entry);
        changes.push({ kind: 'added', id, section: section.number, after: statement.text, line: statement.line });
      }
    }
  }
  return changes;
}
