// The spec read into a typed contract model: its operations (method, path, parameters, body, success
// status and message), its resources (the part-2 tables: field, type, allowed values), the limits of its
// tables and of part 8, its defaults and its "not shown" statements, each with the line it stands on.
// Everything generated from the spec (openapi.yaml's facts, contracts/facts.ts, the mechanical part of
// clauses.yaml) is made from this model; nothing here knows a value of the spec itself.
import { readSpecDocument, type SpecDocument, type SpecLine, type SpecSection, statementsOf } from './spec-document.ts';

/** What the spec says of one field: of a resource, a request body, or a query. */
export interface FieldFact {
  name: string;
  /** The spec's words for its type (`string or null`, `array of Gate rule`). */
  type: string;
  line: number;
  /** Other lines that state its facts (its bounds in part 8). */
  alsoOn?: number[];
  required?: boolean;
  /** Values the spec closes the field to (`One of ...`, `` `increase` or `decrease` ``, `Same values as ...`). */
  allowed?: string[];
  /** Values seen only: examples, never a closed list. */
  seen?: string[];
  default?: string;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
}

export interface OperationFact {
  id: string;
  title: string;
  section: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  line: number;
  /** "200" where the spec shows that status for the operation, "2XX" where any success will do (spec 4.0). */
  successStatus: '200' | '2XX';
  message?: { text: string; line: number };
  pathParams: FieldFact[];
  query: FieldFact[];
  body: FieldFact[];
  /** Whether the spec says the operation takes no body. */
  noBody: boolean;
}

export interface ResourceFact {
  section: string;
  title: string;
  line: number;
  fields: FieldFact[];
}

/** A limit of part 8, with the operation and field it applies to. */
export interface LimitFact {
  operation: string;
  field: string;
  line: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
}

export interface ContractModel {
  title: string;
  operations: OperationFact[];
  resources: ResourceFact[];
  limits: LimitFact[];
  messagesSeen: { text: string; line: number }[];
  notShown: (SpecLine & { section: string })[];
  document: SpecDocument;
  /** Where the spec disagrees with itself (a table and part 8 giving other bounds): reported, the stricter bound kept. */
  warnings: string[];
}

export interface Overlay {
  operations: Record<string, string>;
  resources: Record<string, string>;
  clauseFamilies: Record<string, string>;
  requestBodies: Record<string, string>;
  namedTypes: Record<string, { response?: string; request?: string }>;
  framing: string[];
}

const ticks = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/** `Add gate rules` -> `addGateRules`: the id of an operation the overlay does not name yet. */
export function camelCase(title: string): string {
  const words = title
    .replace(/[^A-Za-z0-9 ]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  return words.map((w, i) => (i === 0 ? w.toLowerCase() : w[0].toUpperCase() + w.slice(1).toLowerCase())).join('');
}

/** The facts a field's notes or qualifiers state: closed values, values seen, a default, bounds, required. */
function factsOfWords(words: string, into: FieldFact): void {
  const oneOf = /\bOne of ((?:`[^`]+`(?:,\s*|\s+or\s+)?)+)/.exec(words);
  const sameAs = /\bSame values as [^:]*:\s*((?:`[^`]+`(?:,\s*)?)+)/.exec(words);
  // "`increase` or `decrease`" at the start of the words closes the field to those values.
  const alternatives = /^\(?((?:`[^`]+`\s+or\s+)+`[^`]+`)/.exec(words.trim());
  const closed = oneOf?.[1] ?? sameAs?.[1] ?? alternatives?.[1];
  if (closed) into.allowed = ticks(closed);
  const seen = /\b[Vv]alues? seen:\s*((?:`[^`]+`(?:,\s*)?)+)/.exec(words);
  if (seen && !closed) into.seen = ticks(seen[1]);
  const dflt = /\bdefault `([^`]+)`/.exec(words);
  if (dflt) into.default = dflt[1];
  const range = /\b[Ll]ength (\d+) to (\d+)\b/.exec(words);
  if (range) {
    into.minLength = Number(range[1]);
    into.maxLength = Number(range[2]);
  }
  const max = /\b[Mm]aximum length (\d+)\b/.exec(words);
  if (max) into.maxLength = Number(max[1]);
  const items = /\bat most (\d+) items\b/.exec(words);
  if (items) into.maxItems = Number(items[1]);
  if (/(^|[(,;]\s*)required\b/.test(words)) into.required = true;
}

/** Splits at commas and semicolons outside parentheses and braces. */
function topLevelPieces(text: string): string[] {
  const pieces: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(' || ch === '{') depth++;
    if (ch === ')' || ch === '}') depth--;
    if ((ch === ',' || ch === ';') && depth === 0) {
      pieces.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim()) pieces.push(current.trim());
  return pieces;
}

/**
 * The fields of a prose list: "`name` string, `tags` array of string (...), required, at most 1000
 * items; ...": a piece that begins with a field in code starts a field, the pieces after it qualify it.
 */
export function fieldsOfProse(text: string, line: number): FieldFact[] {
  const fields: FieldFact[] = [];
  for (const piece of topLevelPieces(text.replace(/\.\s*$/, ''))) {
    const start = /^`([A-Za-z_][\w]*)`\s*(.*)$/s.exec(piece);
    if (start) {
      const rest = start[2];
      const paren = rest.indexOf('(');
      const type = (paren >= 0 ? rest.slice(0, paren) : rest).replace(/\.\s.*$/s, '').trim();
      const field: FieldFact = { name: start[1], type, line };
      factsOfWords(paren >= 0 ? rest.slice(paren) : '', field);
      fields.push(field);
    } else if (fields.length > 0) factsOfWords(piece, fields[fields.length - 1]);
  }
  return fields;
}

/** The fields of a table with a Field (or Name) and a Type column; a cell naming several fields gives each the row. */
function fieldsOfTable(section: SpecSection): FieldFact[] {
  const fields: FieldFact[] = [];
  for (const table of section.tables) {
    const key = table.header.includes('Field') ? 'Field' : table.header.includes('Name') ? 'Name' : undefined;
    if (!key || !table.header.includes('Type')) continue;
    for (const row of table.rows) {
      for (const name of row.cells[key].split(',').map((n) => n.trim().replace(/`/g, ''))) {
        if (!name) continue;
        const field: FieldFact = { name, type: row.cells.Type, line: row.line };
        if (row.cells.Required !== undefined) field.required = /^yes\b/.test(row.cells.Required) && !/\bon list/.test(row.cells.Required);
        factsOfWords(row.cells.Notes ?? '', field);
        // "`increase` or `decrease`" may also stand as the type of a field.
        factsOfWords(row.cells.Type.startsWith('`') ? row.cells.Type : '', field);
        fields.push(field);
      }
    }
  }
  return fields;
}

const ENDPOINT = /^(GET|POST|PUT|PATCH|DELETE) (\/\S+)$/;

function operationOf(section: SpecSection, overlay: Overlay): OperationFact | undefined {
  const endpoint = section.codeLines.map((c) => ({ c, m: ENDPOINT.exec(c.text) })).find((e) => e.m);
  if (!endpoint?.m) return undefined;
  const method = endpoint.m[1] as OperationFact['method'];
  const path = endpoint.m[2];
  const op: OperationFact = {
    id: overlay.operations[`${method} ${path}`] ?? camelCase(section.title),
    title: section.title,
    section: section.number,
    method,
    path,
    line: endpoint.c.line,
    successStatus: '2XX',
    pathParams: [],
    query: [],
    body: [],
    noBody: false,
  };
  for (const l of section.lines) {
    const message = /\bmessage `([^`]+)`/.exec(l.text);
    if (message && /^Response\b/.test(l.text)) op.message = { text: message[1], line: l.line };
    if (/^Response:? 200\b|^Response: 200;/.test(l.text)) op.successStatus = '200';
    if (/\bNo body\b/.test(l.text)) op.noBody = true;
    const list = /^(Path|Query|Body)\b[^:]*:\s*(.*)$/.exec(l.text);
    if (list) {
      const fields = fieldsOfProse(list[2], l.line);
      if (list[1] === 'Path') op.pathParams.push(...fields.map((f) => ({ ...f, type: f.type.replace(/\.\s*No body\.?$/, '') })));
      if (list[1] === 'Query') op.query.push(...fields);
      if (list[1] === 'Body') {
        // "Body, all fields optional:" makes each field optional whatever its words say.
        op.body.push(...fields);
      }
    }
  }
  // A table of the section is its query (4.4: Name | Type | Notes) or its body (4.6: Field | Type | Required | Notes).
  for (const table of section.tables) {
    const fields = fieldsOfTable({ ...section, tables: [table] });
    if (table.header.includes('Name')) op.query.push(...fields);
    else if (table.header.includes('Field')) op.body.push(...fields);
  }
  return op;
}

/** Part 8's table: "Create metric: name" | "length 4 to 200", matched to the operation by its heading. */
function limitsOf(section: SpecSection | undefined, operations: OperationFact[]): LimitFact[] {
  if (!section) return [];
  const limits: LimitFact[] = [];
  for (const table of section.tables) {
    for (const row of table.rows) {
      const applies = /^(.*?):\s*`?([A-Za-z_]\w*)`?$/.exec(row.cells['Applies to'] ?? '');
      if (!applies) throw new Error(`spec line ${row.line}: part 8 names no "Operation: field" in ${JSON.stringify(row.cells['Applies to'])}`);
      const op = operations.find((o) => o.title.toLowerCase() === applies[1].trim().toLowerCase());
      if (!op) throw new Error(`spec line ${row.line}: part 8 names "${applies[1]}", which is the heading of no operation of part 4`);
      const fact: FieldFact = { name: applies[2], type: '', line: row.line };
      factsOfWords(row.cells.Limit ?? '', fact);
      limits.push({ operation: op.id, field: applies[2], line: row.line, minLength: fact.minLength, maxLength: fact.maxLength, maxItems: fact.maxItems });
    }
  }
  return limits;
}

/**
 * Part 8 and the operation's own words must agree; where they do not, both statements bind a server, so
 * the stricter bound of each kind is kept on the field and the disagreement is reported.
 */
function reconcile(operations: OperationFact[], limits: LimitFact[], warnings: string[]): void {
  for (const limit of limits) {
    const op = operations.find((o) => o.id === limit.operation)!;
    const field = op.body.find((f) => f.name === limit.field);
    if (!field) throw new Error(`spec line ${limit.line}: part 8 limits ${limit.operation}.${limit.field}, a field its section ${op.section} does not list`);
    for (const [kind, stricter] of [
      ['minLength', Math.max],
      ['maxLength', Math.min],
      ['maxItems', Math.min],
    ] as const) {
      const own = field[kind];
      const part8 = limit[kind];
      if (part8 === undefined) continue;
      if (own !== undefined && own !== part8)
        warnings.push(
          `spec lines ${field.line} and ${limit.line} give ${op.id}.${field.name} ${kind} ${own} and ${part8}: the stricter, ${stricter(own, part8)}, is kept`,
        );
      field[kind] = own === undefined ? part8 : stricter(own, part8);
      field.alsoOn = [...new Set([...(field.alsoOn ?? []), limit.line])];
    }
  }
}

/** Reads the spec's Markdown into the contract model. */
export function readContractModel(markdown: string, overlay: Overlay): ContractModel {
  const document = readSpecDocument(markdown);
  const warnings: string[] = [];
  const operations = document.sections.map((s) => operationOf(s, overlay)).filter((o): o is OperationFact => o !== undefined);
  const ids = new Set<string>();
  for (const op of operations) {
    if (ids.has(op.id)) throw new Error(`spec line ${op.line}: a second operation with id ${op.id}`);
    ids.add(op.id);
  }
  for (const [endpoint, id] of Object.entries(overlay.operations)) {
    if (!operations.some((o) => `${o.method} ${o.path}` === endpoint))
      throw new Error(`contracts/overlay.yaml names ${id} as \`${endpoint}\`, which the spec no longer shows: remove the entry (and its clauses)`);
  }
  const resources: ResourceFact[] = [];
  for (const [number] of Object.entries(overlay.resources)) {
    const section = document.sections.find((s) => s.number === number);
    if (!section) throw new Error(`contracts/overlay.yaml maps section ${number}, which is not a section of the spec`);
    const fields = fieldsOfTable(section);
    if (fields.length === 0)
      throw new Error(`spec line ${section.line}: section ${number} (${section.title}) has no Field | Type table, yet contracts/overlay.yaml maps it`);
    resources.push({ section: number, title: section.title, line: section.line, fields });
  }
  const limits = limitsOf(
    document.sections.find((s) => s.number === '8'),
    operations,
  );
  reconcile(operations, limits, warnings);
  const messagesSeen: { text: string; line: number }[] = [];
  const notShown: (SpecLine & { section: string })[] = [];
  for (const section of document.sections) {
    for (const l of statementsOf(section)) {
      if (/^Message texts seen:/.test(l.text)) messagesSeen.push(...ticks(l.text).map((text) => ({ text, line: l.line })));
      if (/not shown/.test(l.text)) notShown.push({ ...l, section: section.number });
    }
  }
  return { title: document.title, operations, resources, limits, messagesSeen, notShown, document, warnings };
}
