// What changed between two revisions of the spec, clause by clause: each clause added, removed or
// changed, with its spec lines before and after, classed as oasdiff classes changes: breaking for
// servers (a server that keeps the old revision now breaks the contract), breaking for clients (a client
// written against the old revision may now be refused or misread), or compatible.
import { type ClauseChange, syncClauses } from './clause-sync.ts';
import { type ContractModel, type FieldFact, type Overlay, readContractModel } from './contract-model.ts';
import { parsedOnce } from './parsed-yaml.ts';
import { statementsOf } from './spec-document.ts';

export type ChangeClass = 'breaking-for-servers' | 'breaking-for-clients' | 'compatible';

/** One change of a fact the model holds, on the spec lines it stands on. */
export interface FactChange {
  what: string;
  class: ChangeClass[];
  linesBefore: number[];
  linesAfter: number[];
}

const linesOf = (f: { line: number; alsoOn?: number[] } | undefined) => (f ? [f.line, ...(f.alsoOn ?? [])] : []);

export interface ClauseDiff {
  kind: 'added' | 'removed' | 'changed';
  id: string;
  section: string;
  level: string;
  before?: { line?: number; text: string };
  after?: { line?: number; text: string };
  class: ChangeClass[];
  because: string[];
}

export interface SpecDiff {
  clauses: ClauseDiff[];
  facts: FactChange[];
}

const SEVERITY: ChangeClass[] = ['breaking-for-servers', 'breaking-for-clients', 'compatible'];
const merge = (...classes: ChangeClass[][]) => SEVERITY.filter((c) => classes.flat().includes(c));

/** Where a field's facts changed, and whom each change breaks. `side` says who sends the field. */
function fieldChanges(where: string, a: FieldFact | undefined, b: FieldFact | undefined, side: 'request' | 'response'): FactChange[] {
  const out: FactChange[] = [];
  const at = { linesBefore: linesOf(a), linesAfter: linesOf(b) };
  // Who must change when the set of valid values grows or shrinks: the receiver when it grows; when it
  // shrinks, the sender, and for a request the server too, since the suite holds (stated) that a value
  // outside the bounds or the list is not accepted.
  const receiver: ChangeClass = side === 'request' ? 'breaking-for-servers' : 'breaking-for-clients';
  const sender: ChangeClass[] = side === 'request' ? ['breaking-for-servers', 'breaking-for-clients'] : ['breaking-for-servers'];
  if (!a && b) return [{ what: `${where} added (${b.type})`, class: b.required ? merge([receiver], sender) : [receiver], ...at }];
  if (a && !b) return [{ what: `${where} removed`, class: merge(sender, [receiver]), ...at }];
  if (!a || !b) return out;
  if (a.type !== b.type) out.push({ what: `${where} type ${a.type} -> ${b.type}`, class: ['breaking-for-servers', 'breaking-for-clients'], ...at });
  if (Boolean(a.required) !== Boolean(b.required))
    out.push({ what: `${where} ${b.required ? 'now required' : 'now optional'}`, class: b.required ? sender : [receiver], ...at });
  for (const [kind, widerWhenLarger] of [
    ['minLength', false],
    ['maxLength', true],
    ['maxItems', true],
  ] as const) {
    const x = a[kind];
    const y = b[kind];
    if (x === y) continue;
    const wider = x === undefined ? false : y === undefined ? true : widerWhenLarger ? y > x : y < x;
    out.push({ what: `${where} ${kind} ${x ?? 'none'} -> ${y ?? 'none'}`, class: wider ? [receiver] : sender, ...at });
  }
  if (a.default !== b.default)
    out.push({ what: `${where} default ${a.default ?? 'none'} -> ${b.default ?? 'none'}`, class: ['breaking-for-servers', 'breaking-for-clients'], ...at });
  const before = a.allowed ?? [];
  const after = b.allowed ?? [];
  const removed = before.filter((v) => !after.includes(v));
  const added = after.filter((v) => !before.includes(v));
  if (removed.length > 0) out.push({ what: `${where} no longer allows ${removed.join(', ')}`, class: sender, ...at });
  if (added.length > 0) out.push({ what: `${where} now allows ${added.join(', ')}`, class: [receiver], ...at });
  return out;
}

/** Every fact that differs between two models. */
export function factChanges(a: ContractModel, b: ContractModel): FactChange[] {
  const out: FactChange[] = [];
  const ops = new Set([...a.operations.map((o) => o.id), ...b.operations.map((o) => o.id)]);
  for (const id of ops) {
    const x = a.operations.find((o) => o.id === id);
    const y = b.operations.find((o) => o.id === id);
    if (!x && y) {
      out.push({ what: `operation ${id} added (${y.method} ${y.path})`, class: ['breaking-for-servers'], linesBefore: [], linesAfter: [y.line] });
      continue;
    }
    if (x && !y) {
      out.push({ what: `operation ${id} removed (${x.method} ${x.path})`, class: ['breaking-for-clients'], linesBefore: [x.line], linesAfter: [] });
      continue;
    }
    if (!x || !y) continue;
    if (x.message?.text !== y.message?.text)
      out.push({
        what: `${id} message ${JSON.stringify(x.message?.text ?? null)} -> ${JSON.stringify(y.message?.text ?? null)}`,
        class: ['breaking-for-servers'],
        linesBefore: x.message ? [x.message.line] : [],
        linesAfter: y.message ? [y.message.line] : [],
      });
    if (x.successStatus !== y.successStatus)
      out.push({
        what: `${id} success status ${x.successStatus} -> ${y.successStatus}`,
        class: [y.successStatus === '200' ? 'breaking-for-servers' : 'breaking-for-clients'],
        linesBefore: [x.line],
        linesAfter: [y.line],
      });
    for (const part of ['body', 'query', 'pathParams'] as const) {
      const names = new Set([...x[part].map((f) => f.name), ...y[part].map((f) => f.name)]);
      for (const n of names)
        out.push(
          ...fieldChanges(
            `${id} ${part === 'pathParams' ? 'path' : part} ${n}`,
            x[part].find((f) => f.name === n),
            y[part].find((f) => f.name === n),
            'request',
          ),
        );
    }
  }
  for (const r of b.resources) {
    const before = a.resources.find((x) => x.section === r.section);
    if (!before) continue;
    const names = new Set([...before.fields.map((f) => f.name), ...r.fields.map((f) => f.name)]);
    for (const n of names)
      out.push(
        ...fieldChanges(
          `${r.title} (${r.section}) ${n}`,
          before.fields.find((f) => f.name === n),
          r.fields.find((f) => f.name === n),
          'response',
        ),
      );
  }
  return out;
}

interface ClauseState {
  id: string;
  section: string;
  level: string;
  text: string;
  line?: number;
}

/** The clauses of one revision: the committed catalogue brought to that revision's words, each with its line. */
function clausesOf(model: ContractModel, overlay: Overlay, clausesText: string): { clauses: ClauseState[]; lost: Set<string> } {
  const doc = parsedOnce(clausesText);
  const lost = new Set<string>();
  let changes: ClauseChange[] = [];
  // A clause whose words are gone is what a diff reports as removed, not a reason to stop.
  for (;;) {
    try {
      changes = syncClauses(doc, model, overlay);
      break;
    } catch (err) {
      const ids = [...(err as Error).message.matchAll(/^\s+(\S+) \(section/gm)].map((m) => m[1]);
      if (ids.length === 0) throw err;
      const seq = doc.get('clauses') as { items: { get(k: string): unknown }[] };
      seq.items = seq.items.filter((i) => !ids.includes(String(i.get('id'))));
      for (const id of ids) lost.add(id);
    }
  }
  const clauses = (doc.toJS() as { clauses: ClauseState[] }).clauses.map((c) => ({ id: c.id, section: String(c.section), level: c.level, text: c.text }));
  const lineOf = (c: ClauseState): number | undefined => {
    const moved = changes.find((x) => x.id === c.id);
    if (moved) return moved.line;
    const section = model.document.sections.find((s) => s.number === c.section);
    const n = c.text.replace(/`/g, '').replace(/\s+/g, ' ').trim();
    return section ? statementsOf(section).find((s) => s.text.replace(/`/g, '').replace(/\s+/g, ' ').includes(n))?.line : undefined;
  };
  return { clauses: clauses.map((c) => ({ ...c, line: c.level === 'inferred' ? undefined : lineOf(c) })), lost };
}

/** The clause-by-clause difference between two revisions of the spec, against the same catalogue and overlay. */
export function diffSpecs(oldSpec: string, newSpec: string, overlay: Overlay, clausesText: string): SpecDiff {
  const a = readContractModel(oldSpec, overlay);
  const b = readContractModel(newSpec, overlay);
  const facts = factChanges(a, b);
  const before = clausesOf(a, overlay, clausesText);
  const after = clausesOf(b, overlay, clausesText);
  const byId = new Map(before.clauses.map((c) => [c.id, c]));
  const afterIds = new Set(after.clauses.map((c) => c.id));
  const clauses: ClauseDiff[] = [];
  const classify = (lineBefore?: number, lineAfter?: number, section?: string): { class: ChangeClass[]; because: string[] } => {
    const hit = facts.filter(
      (f) => (lineBefore !== undefined && f.linesBefore.includes(lineBefore)) || (lineAfter !== undefined && f.linesAfter.includes(lineAfter)),
    );
    if (hit.length === 0 && section) {
      const op = b.operations.find((o) => o.section === section) ?? a.operations.find((o) => o.section === section);
      const whole = op ? facts.filter((f) => f.what.startsWith(`operation ${op.id} `)) : [];
      if (whole.length > 0) return { class: merge(...whole.map((f) => f.class)), because: whole.map((f) => f.what) };
    }
    return { class: merge(...hit.map((f) => f.class)), because: hit.map((f) => f.what) };
  };
  for (const c of after.clauses) {
    const old = byId.get(c.id);
    if (!old || before.lost.has(c.id)) {
      const why = classify(undefined, c.line, c.section);
      clauses.push({ kind: 'added', id: c.id, section: c.section, level: c.level, after: { line: c.line, text: c.text }, ...withDefault(why, c.level) });
    } else if (old.text !== c.text || old.section !== c.section) {
      const why = classify(old.line, c.line);
      clauses.push({
        kind: 'changed',
        id: c.id,
        section: c.section,
        level: c.level,
        before: { line: old.line, text: old.text },
        after: { line: c.line, text: c.text },
        ...withDefault(why, c.level),
      });
    }
  }
  for (const c of before.clauses) {
    if (afterIds.has(c.id) && !after.lost.has(c.id)) continue;
    const why = classify(c.line, undefined, c.section);
    clauses.push({
      kind: 'removed',
      id: c.id,
      section: c.section,
      level: c.level,
      before: { line: c.line, text: c.text },
      ...withDefault(why, c.level, 'breaking-for-clients'),
    });
  }
  return { clauses, facts };
}

/** A clause change no fact explains: an open clause's words are compatible, a stated clause's bind servers. */
function withDefault(why: { class: ChangeClass[]; because: string[] }, level: string, fallback: ChangeClass = 'breaking-for-servers') {
  if (why.class.length > 0) return why;
  return { class: [level === 'open' ? 'compatible' : fallback] as ChangeClass[], because: ['the words of the clause changed'] };
}
