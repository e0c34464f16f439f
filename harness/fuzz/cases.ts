// Malformed requests for every operation, as fast-check arbitraries. Each case says whether the
// contract (or a stated server decision of docs/development.md) requires a rejection ("reject") or
// whether a mutation happened to leave the request valid ("either": any non-5xx answer is fine).
import fc from 'fast-check';
import type { FuzzOperation } from './contract.ts';
import type { Json as Parsed } from '../../core/json.ts';
import { SPEC_ALLOWED, SPEC_LIMITS } from '../../contracts/index.ts';

export type Expect = 'reject' | 'either';

export interface FuzzCase {
  category: string;
  op: string;
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  payload?: string | Buffer;
  expect: Expect;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = (string | number)[];

/** Placeholder spliced out of the JSON text afterwards, for text that JSON.stringify cannot produce. */
const RAW = '\u0000RAW';
const RAW_JSON = JSON.stringify(RAW);

function paths(value: Json, at: Path = []): { path: Path; value: Json }[] {
  const out = [{ path: at, value }];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...at, i])));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...at, k]));
  return out;
}

function valueAt(root: Json, path: Path): Json {
  let node: Parsed = root;
  for (const key of path) node = node[key];
  return node;
}

function setAt(root: Json, path: Path, value: Json): Json {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Parsed;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path[path.length - 1]] = value;
  return copy;
}

function deleteAt(root: Json, path: Path): Json | undefined {
  if (path.length === 0) return undefined;
  const copy = structuredClone(root) as Parsed;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  if (Array.isArray(node)) node.splice(path[path.length - 1] as number, 1);
  else delete node[path[path.length - 1]];
  return copy;
}

/** The text of `root` with `raw` (any text, valid JSON or not) standing at `path`. */
function spliceRaw(root: Json, path: Path, raw: string): string {
  return JSON.stringify(setAt(root, path, RAW)).replace(RAW_JSON, () => raw);
}

/** Whether the contract requires a rejection of this body text (the server parses with JSON.parse too). */
function classifyText(op: FuzzOperation, text: string): Expect {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'reject';
  }
  return op.body!(value) ? 'either' : 'reject';
}

function fillPath(path: string, id: string): string {
  return path.replace('{id}', id);
}

const WRONG_VALUES: Json[] = [null, true, false, 0, -1, 1.5, '', 'text', [], [1, 'a'], {}, { a: 1 }];
const NUMBER_LITERALS = [
  '1e309',
  '-1e309',
  '1e-400',
  '4.9e-324',
  '9007199254740993',
  '-9007199254740993',
  '-0',
  '1.7976931348623157e308',
  '123456789012345678901234567890',
  '-1',
  '101',
  '1e2',
  '0.1e1',
];
const NOT_JSON_NUMBERS = ['NaN', 'Infinity', '-Infinity', '+1', '.5', '01', '0x10', '1_000', '1e', '--1'];
const INVALID_UTF8 = [[0xff], [0xfe, 0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80]].map((b) => Buffer.from(b));
const JSON_BREAKERS = ['{', '}', '[', ']', ',', ':', '"', '\\', '\u0000', '\u0007', 'x', "'", '\u2028', ' ', '/*', '//'];
/** The spec's bounds of request fields (part 8), each as the contract states it. */
const BOUNDS = Object.values(SPEC_LIMITS).flatMap((fields) => Object.values(fields) as { minLength?: number; maxLength?: number; maxItems?: number }[]);
const onePast = (key: 'maxLength' | 'maxItems') => [...new Set(BOUNDS.flatMap((b) => (b[key] === undefined ? [] : [b[key] + 1])))];
// One past each of the spec's bounds, whichever field it is in, and sizes far past any.
const SIZES = [...onePast('maxLength'), 65_536, 1_000_000];
const ARRAY_SIZES = [...onePast('maxItems'), 10_000, 100_000];
const DEPTHS = [33, 200, 1000, 10_000, 100_000];
const CHAR_UNITS = ['x', 'é', '😀', '\u0000', '\n', '"', '\\'];

const REJECTED_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json-seq',
  'application/jsonx',
  'json',
  'text/json',
  '*/*',
];
const TOLERATED_CONTENT_TYPES = ['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8', 'application/json ; charset=utf-8'];

const ODD_IDS_RAW = [
  '.',
  '..',
  '...',
  'a/b',
  'a/../b',
  '%',
  '%zz',
  '%E2%82',
  '%2e%2e',
  '%2F',
  'a%2Fb',
  '%00',
  '%0d%0aX-Injected:%201',
  '%20',
  '~',
  '*',
  '!',
  '$',
  ';',
  ',',
  '@',
  '(',
  ')',
  'con',
  'NUL',
  'x'.repeat(101),
  'x'.repeat(5000),
  '%F0%9F%98%80',
  '%E2%80%AE',
  'null',
  'undefined',
  '0',
  '-1',
  '%3Cscript%3E',
  '%22',
  '%27',
];

export interface CaseContext {
  apiKey: string;
  operations: FuzzOperation[];
}

export function caseArbitrary(ctx: CaseContext): fc.Arbitrary<FuzzCase> {
  const headers = (extra: Record<string, string | string[]> = {}) => ({ 'service-api-key': ctx.apiKey, ...extra });
  const jsonHeaders = (extra: Record<string, string | string[]> = {}) => headers({ 'content-type': 'application/json', ...extra });
  const withBody = ctx.operations.filter((o) => o.validBody !== undefined);
  const withId = ctx.operations.filter((o) => o.validId !== undefined);
  const withQuery = ctx.operations.filter((o) => o.query !== undefined);

  const url = (op: FuzzOperation, id = op.validId) => (id === undefined ? op.path : fillPath(op.path, id));

  /** A body case: the valid body of `op` changed by `mutate`, sent as JSON text (or bytes). */
  const bodyCase = (
    category: string,
    mutate: (op: FuzzOperation, body: Json) => fc.Arbitrary<{ payload: string | Buffer; expect?: Expect }>,
    needs: (v: Json) => boolean = () => true,
  ) =>
    // Only operations whose valid body has a node the mutation can work on (skip has no array, say).
    fc.constantFrom(...withBody.filter((o) => paths(o.validBody as Json).some((p) => needs(p.value)))).chain((op) =>
      mutate(op, op.validBody as Json).map(
        ({ payload, expect }): FuzzCase => ({
          category,
          op: op.id,
          method: op.method,
          url: url(op),
          headers: jsonHeaders(),
          payload,
          expect: expect ?? (typeof payload === 'string' ? classifyText(op, payload) : 'reject'),
        }),
      ),
    );

  const pathOf = (body: Json, keep: (v: Json) => boolean = () => true) =>
    fc.constantFrom(
      ...paths(body)
        .filter((p) => keep(p.value))
        .map((p) => p.path),
    );
  const isString = (v: Json) => typeof v === 'string';
  const isArray = (v: Json) => Array.isArray(v);
  const isObject = (v: Json) => v !== null && typeof v === 'object' && !Array.isArray(v);

  const wrongType = bodyCase('wrong-type', (_op, body) =>
    fc.tuple(pathOf(body), fc.constantFrom(...WRONG_VALUES)).map(([p, v]) => ({ payload: JSON.stringify(setAt(body, p, v)) })),
  );

  const missingField = bodyCase('missing-field', (_op, body) => pathOf(body).map((p) => ({ payload: JSON.stringify(deleteAt(body, p) ?? null) })));

  const extraField = bodyCase(
    'extra-field',
    (_op, body) =>
      fc
        .tuple(
          pathOf(body, isObject),
          fc.oneof(
            fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', '', ' ', 'ID', 'Name', '$ref', 'rules ', 'dryrun'),
            fc.string({ minLength: 1, maxLength: 12 }),
          ),
          fc.constantFrom<Json>(1, 'x', null, { polluted: true }),
        )
        .map(([p, key, value]) => {
          // Written as text, so that "__proto__" is an own key of the parsed object, as on the wire.
          const inner = JSON.stringify(valueAt(body, p));
          const extra = `${JSON.stringify(key)}:${JSON.stringify(value)}`;
          const obj = inner === '{}' ? `{${extra}}` : `{${extra},${inner.slice(1)}`;
          return { payload: spliceRaw(body, p, obj) };
        }),
    isObject,
  );

  const oversizeString = bodyCase(
    'oversize-string',
    (_op, body) =>
      fc
        .tuple(pathOf(body, isString), fc.constantFrom(...SIZES), fc.constantFrom(...CHAR_UNITS))
        .map(([p, n, unit]) => ({ payload: JSON.stringify(setAt(body, p, unit.repeat(n))) })),
    isString,
  );

  const oversizeArray = bodyCase(
    'oversize-array',
    (_op, body) =>
      fc.tuple(pathOf(body, isArray), fc.constantFrom(...ARRAY_SIZES)).map(([p, n]) => {
        const arr = valueAt(body, p) as Json[];
        const item = arr.length > 0 ? arr[0] : 'x';
        return {
          payload: JSON.stringify(
            setAt(
              body,
              p,
              Array.from({ length: n }, () => item),
            ),
          ),
        };
      }),
    isArray,
  );

  const deepNesting = bodyCase('deep-nesting', (_op, body) =>
    fc.tuple(pathOf(body), fc.constantFrom(...DEPTHS), fc.constantFrom('array', 'object')).map(([p, depth, kind]) => {
      const raw = kind === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      return { payload: spliceRaw(body, p, raw) };
    }),
  );

  const numbers = bodyCase(
    'number-out-of-range',
    (_op, body) =>
      fc
        .tuple(
          pathOf(body, (v) => v !== null && typeof v !== 'object'),
          fc.constantFrom(...NUMBER_LITERALS, ...NOT_JSON_NUMBERS),
        )
        .map(([p, literal]) => ({ payload: spliceRaw(body, p, literal) })),
    (v) => v !== null && typeof v !== 'object',
  );

  const invalidJson = bodyCase('invalid-json', (_op, body) => {
    const text = JSON.stringify(body);
    return fc.oneof(
      fc.nat({ max: text.length - 1 }).map((i) => ({ payload: text.slice(0, i) })),
      fc.tuple(fc.nat({ max: text.length }), fc.constantFrom(...JSON_BREAKERS)).map(([i, c]) => ({ payload: text.slice(0, i) + c + text.slice(i) })),
      fc
        .constantFrom(
          text.replace(/"/g, "'"),
          `${text.slice(0, -1)},}`,
          `${text} /* comment */`,
          `\uFEFF${text}`,
          `${text}${text}`,
          `${text}x`,
          'NaN',
          'undefined',
          'null',
          'true',
          '0',
          '"text"',
          '[]',
          '[{}]',
          '{"a":1,"a":2}',
          ' ',
          '\n\t',
          `{"__proto__":{"polluted":true}}`,
        )
        .map((payload) => ({ payload })),
    );
  });

  const invalidUtf8 = bodyCase(
    'invalid-utf8',
    (_op, body) =>
      fc.tuple(pathOf(body, isString), fc.constantFrom(...INVALID_UTF8)).map(([p, bytes]) => {
        const [before, after] = JSON.stringify(setAt(body, p, RAW)).split(RAW_JSON);
        // JSON text must be UTF-8 (RFC 8259, 8.1): these bytes cannot be read as text without guessing.
        return { payload: Buffer.concat([Buffer.from(`${before}"ab`), bytes, Buffer.from(`cd"${after}`)]), expect: 'reject' as Expect };
      }),
    isString,
  );

  const hugeBody = bodyCase(
    'huge-body',
    (_op, body) =>
      fc
        .tuple(pathOf(body, isString), fc.constantFrom(2 * 1024 * 1024 + 1, 3 * 1024 * 1024, 8 * 1024 * 1024))
        .map(([p, n]) => ({ payload: JSON.stringify(setAt(body, p, 'x'.repeat(n))), expect: 'reject' as Expect })),
    isString,
  );

  const oddId = fc.constantFrom(...withId).chain((op) =>
    fc
      .oneof(
        fc.constantFrom(...ODD_IDS_RAW),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map(encodeURIComponent),
        fc.string({ minLength: 1, maxLength: 30 }).map((s) => `${op.validId}${encodeURIComponent(s)}`),
        fc.constantFrom(
          `${op.validId}/`,
          `${op.validId}.json`,
          encodeURIComponent(` ${op.validId}`),
          op.validId!.toUpperCase(),
          `${op.validId}%00`,
          `${op.validId}/..`,
        ),
      )
      .map((id): FuzzCase => {
        let decoded: string | undefined;
        try {
          decoded = decodeURIComponent(id);
        } catch {
          decoded = undefined;
        }
        return {
          category: 'odd-id',
          op: op.id,
          method: op.method,
          url: url(op, id),
          headers: op.validBody === undefined ? headers() : jsonHeaders(),
          payload: op.validBody === undefined ? undefined : JSON.stringify(op.validBody),
          expect: decoded === op.validId ? 'either' : 'reject',
        };
      }),
  );

  const LIMITS = [
    'abc',
    '1.5',
    '-1',
    '0',
    '101',
    '1e3',
    '',
    '0x10',
    'NaN',
    'Infinity',
    '99999999999999999999',
    ' 5',
    '5 ',
    '+5',
    '1,2',
    '١٠',
    '-0',
    'true',
    'null',
    '[]',
    '100',
    '1',
    '20',
  ];
  const DATES = [
    '2024-13-01',
    '2024-02-30',
    '24-01-01',
    '2024-1-1',
    '2024-01-01T00:00:00Z',
    '2023-02-29',
    '2024-02-29',
    '0000-00-00',
    '9999-12-31',
    '',
    '2024/01/01',
    'today',
  ];
  // Near misses of the contract's statuses (4.4): one in upper case, two joined, one with a space for its underscore.
  const [status, next] = SPEC_ALLOWED.listExperiments.status;
  const spaced = SPEC_ALLOWED.listExperiments.status.find((x) => x.includes('_'))?.replace('_', ' ') ?? `${status} `;
  const STATUSES = [status, status.toUpperCase(), 'unknown', '', `${status},${next}`, spaced, '%00'];
  const queryValue = (name: string): fc.Arbitrary<string> =>
    name === 'limit' || name === 'page'
      ? fc.constantFrom(...LIMITS, '9007199254740993')
      : name.startsWith('created')
        ? fc.constantFrom(...DATES)
        : name === 'status'
          ? fc.constantFrom(...STATUSES)
          : fc.string({ unit: 'grapheme', maxLength: 20 });
  const queryCase = fc.constantFrom(...withQuery).chain((op) => {
    const names = Object.keys((op.query!.schema as { properties: object }).properties);
    const entry = fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...names).chain((n) => queryValue(n).map((v) => [n, v] as [string, string])) },
      { weight: 1, arbitrary: fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 8 })) },
    );
    return fc.array(entry, { minLength: 1, maxLength: 4 }).map((entries): FuzzCase => {
      const search = new URLSearchParams(entries);
      return { category: 'query', op: op.id, method: op.method, url: `${op.path}?${search}`, headers: headers(), expect: expectQuery(op, search) };
    });
  });

  const contentType = fc.constantFrom(...withBody).chain((op) =>
    fc
      .oneof(
        fc.constantFrom(...REJECTED_CONTENT_TYPES).map((t) => [t, 'reject'] as const),
        fc.constantFrom(...TOLERATED_CONTENT_TYPES).map((t) => [t, 'either'] as const),
        fc.constant([undefined, 'reject'] as const),
      )
      .map(
        ([type, expect]): FuzzCase => ({
          category: 'content-type',
          op: op.id,
          method: op.method,
          url: url(op),
          headers: type === undefined ? headers() : headers({ 'content-type': type }),
          payload: JSON.stringify(op.validBody),
          expect,
        }),
      ),
  );

  const duplicateHeaders = fc.constantFrom(...ctx.operations).chain((op) =>
    fc
      .constantFrom<[Record<string, string | string[]>, Expect]>(
        [{ 'service-api-key': [ctx.apiKey, ctx.apiKey] }, 'reject'],
        [{ 'service-api-key': [ctx.apiKey, 'other'] }, 'reject'],
        [{ 'service-api-key': `${ctx.apiKey}, ${ctx.apiKey}` }, 'reject'],
        [{ 'service-api-key': ctx.apiKey, 'content-type': ['application/json', 'application/json'] }, 'either'],
        [{ 'service-api-key': ctx.apiKey, 'content-type': ['application/json', 'text/plain'] }, 'either'],
        [{ 'service-api-key': ctx.apiKey, 'x-respect-review-settings': ['true', 'false'] }, 'either'],
        [{ 'service-api-key': ctx.apiKey, 'x-respect-review-settings': '\u00ff\u0001' }, 'either'],
      )
      .map(([h, expect]): FuzzCase => {
        const body = op.validBody === undefined ? undefined : JSON.stringify(op.validBody);
        const hdrs = body !== undefined && !('content-type' in h) ? { ...h, 'content-type': 'application/json' } : h;
        return { category: 'duplicate-headers', op: op.id, method: op.method, url: url(op), headers: hdrs, payload: body, expect };
      }),
  );

  const wrongMethod = fc.constantFrom(...ctx.operations).chain((op) =>
    fc
      .constantFrom(
        ...['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter(
          (m) => m !== op.method && !ctx.operations.some((o) => o.path === op.path && o.method === m),
        ),
      )
      .map(
        (method): FuzzCase => ({
          category: 'wrong-method',
          op: op.id,
          method,
          url: url(op),
          headers: jsonHeaders(),
          payload: JSON.stringify(op.validBody ?? {}),
          expect: 'reject',
        }),
      ),
  );

  const badAuth = fc.constantFrom(...ctx.operations).chain((op) =>
    fc
      .constantFrom<Record<string, string>>(
        {},
        { 'service-api-key': '' },
        { 'service-api-key': 'wrong' },
        { 'service-api-key': ` ${ctx.apiKey} ` },
        { 'service-api-key': ctx.apiKey.toUpperCase() },
        { 'service-api-key': ctx.apiKey.slice(0, -1) },
        { authorization: `Bearer ${ctx.apiKey}` },
      )
      .map(
        (h): FuzzCase => ({
          category: 'bad-auth',
          op: op.id,
          method: op.method,
          url: url(op),
          headers: op.validBody === undefined ? h : { ...h, 'content-type': 'application/json' },
          payload: op.validBody === undefined ? undefined : JSON.stringify(op.validBody),
          expect: 'reject',
        }),
      ),
  );

  return fc.oneof(
    { weight: 4, arbitrary: wrongType },
    { weight: 3, arbitrary: missingField },
    { weight: 3, arbitrary: extraField },
    { weight: 2, arbitrary: oversizeString },
    { weight: 1, arbitrary: oversizeArray },
    { weight: 2, arbitrary: deepNesting },
    { weight: 3, arbitrary: numbers },
    { weight: 4, arbitrary: invalidJson },
    { weight: 2, arbitrary: invalidUtf8 },
    { weight: 1, arbitrary: hugeBody },
    { weight: 4, arbitrary: oddId },
    { weight: 4, arbitrary: queryCase },
    { weight: 2, arbitrary: contentType },
    { weight: 2, arbitrary: duplicateHeaders },
    { weight: 2, arbitrary: wrongMethod },
    { weight: 2, arbitrary: badAuth },
  );
}

/**
 * A query the server must reject: the contract's query schema refuses it (after the usual coercion of
 * query text). Any integer limit and page is allowed (docs/development.md: the reference clamps them
 * to 1..100 and 1..2^53 - 1), so paging values are decided by the contract alone.
 */
function expectQuery(op: FuzzOperation, search: URLSearchParams): Expect {
  const data: Record<string, string | string[]> = {};
  for (const [k, v] of search) data[k] = k in data ? ([] as string[]).concat(data[k], v) : v;
  if (!op.query!(data)) return 'reject';
  return 'either';
}
