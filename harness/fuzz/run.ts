// npm run fuzz -- [--runs N] [--seed S]     (npm run fuzz:smoke: 1,500 seeded requests, part of npm test)
// Sends malformed requests to every operation of the reference server (build() + inject(), no port)
// and checks after each one: no 5xx, no crash, errors in the one error shape, a request the contract
// rejects is rejected, and nothing persisted by a rejected write (a digest of the database file,
// read through a separate read-only connection, unchanged). Prints counts by status and category.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Db } from '../../reference/store/sqlite.ts';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { build } from '../../reference/app.ts';
import { fail as failCommand, integerOption, parseCommand } from '../../core/command.ts';
import { randomApiKey } from '../../core/reference.ts';
import { caseArbitrary, type FuzzCase } from './cases.ts';
import { FUZZ_METRIC, loadOperations } from './contract.ts';
import { dbDigest, openReadOnly } from './digest.ts';
import { judgeAnswer, type ViolationKind } from './oracle.ts';

const HELP = `usage: npm run fuzz -- [--runs N] [--seed S] [--examples N]

Property-based fuzz (fast-check) of every operation of the reference server, in process (no port).
Categories: wrong types, missing and extra fields, oversize strings and arrays, deep nesting, numbers
out of range, invalid JSON, invalid UTF-8, huge bodies, odd ids, bad query values, content types,
duplicate headers, wrong methods, bad keys.

  --runs N       requests to send (default 10000; npm run fuzz:smoke sends 1500)
  --seed S       fast-check seed (default: random, printed, so a run can be repeated)
  --examples N   repro examples printed per kind of violation (default 2)
  --help         this text

Environment: none read (the server runs in this process with a random key).
Exit 0 when every property holds, 1 when one does not (each kind printed with a repro, key
redacted), 3 when the options are wrong.`;

const NAME = 'fuzz';
function fail(reason: string): never {
  return failCommand(NAME, reason);
}

const { values } = parseCommand({
  name: NAME,
  help: HELP,
  options: { runs: { type: 'string' }, seed: { type: 'string' }, examples: { type: 'string' } },
});
const runs = integerOption(NAME, '--runs', values.runs, { min: 1, fallback: 10_000 });
const seed = integerOption(NAME, '--seed', values.seed, { min: -(2 ** 31), fallback: Math.floor(Math.random() * 2 ** 31) });
const examples = integerOption(NAME, '--examples', values.examples, { min: 0, fallback: 2 });

interface Violation {
  kind: ViolationKind;
  reason: string;
  c: FuzzCase;
}

const apiKey = randomApiKey();
const dir = mkdtempSync(join(tmpdir(), 'cc-fuzz-'));
/** Requests per server: a fresh seed every so often keeps triggers skippable and accepted oversize
 * writes (rules are appended, never removed) from making every later request slower. */
const EPOCH = 1000;

interface Epoch {
  app: FastifyInstance;
  ro: Db;
  totalChanges: () => number;
  baseline: string;
}

async function newEpoch(n: number): Promise<Epoch> {
  const file = join(dir, `fuzz-${n}.db`);
  const app = build({ apiKey, db: file, seed: 1 });
  await app.ready();
  const changes = (app as unknown as { db: Db }).db.prepare('SELECT total_changes()').pluck();
  const created = await app.inject({
    method: 'POST',
    url: '/console/v1/metrics',
    headers: { 'service-api-key': apiKey, 'content-type': 'application/json' },
    payload: JSON.stringify(FUZZ_METRIC),
  });
  if (created.statusCode >= 300) fail(`cannot create the metric update-metric is fuzzed on: ${created.statusCode} ${created.body.slice(0, 200)}`);
  const ro = openReadOnly(file);
  return { app, ro, totalChanges: () => changes.get() as number, baseline: dbDigest(ro) };
}

async function endEpoch(e: Epoch): Promise<void> {
  await e.app.close();
  e.ro.close();
}

const violations: Violation[] = [];
let crashed: unknown;
// An exception escaping the server is recorded against the request that caused it, not lost; the
// exit code is 1 even if the run itself cannot finish after it.
process.on('uncaughtException', (err) => {
  crashed = err;
  process.exitCode = 1;
});
process.on('unhandledRejection', (err) => {
  crashed = err;
  process.exitCode = 1;
});

/** A request the server never answers is a failure too (and would otherwise let the event loop drain). */
const ANSWER_MS = 30_000;
function answerWithin<T>(p: Promise<T>, c: FuzzCase): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_MS} ms to ${c.method} ${c.url.slice(0, 80)}`)), ANSWER_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

const byStatus = new Map<number, number>();
const byCategory = new Map<string, { n: number; rejected: number; accepted: number; violations: number }>();
const arb = caseArbitrary({ apiKey, operations: loadOperations() });
const started = Date.now();
let sent = 0;
let digests = 0;

let epoch = await newEpoch(0);
for (let chunk = 0; sent < runs; chunk++) {
  if (sent > 0 && sent % EPOCH === 0) {
    await endEpoch(epoch);
    epoch = await newEpoch(sent / EPOCH);
    console.log(`fuzz: ${sent} requests sent, ${violations.length} violations so far (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
  // Chunks keep memory flat (huge bodies are generated 100 at a time) and stay reproducible from the seed.
  let cases: FuzzCase[];
  try {
    cases = fc.sample(arb, { seed: seed + chunk, numRuns: Math.min(100, runs - sent) });
  } catch (err) {
    // A broken generator is the fuzz's own bug: say so loudly, never end as if all were well.
    console.error(`fuzz: internal error generating cases (seed ${seed + chunk}): ${(err as Error).stack}`);
    process.exit(1);
  }
  for (const c of cases) {
    sent++;
    const before = epoch.totalChanges();
    const cat = byCategory.get(c.category) ?? { n: 0, rejected: 0, accepted: 0, violations: 0 };
    byCategory.set(c.category, cat);
    cat.n++;
    let found: { kind: ViolationKind; reason: string }[];
    let status = 0;
    try {
      const res = await answerWithin(epoch.app.inject({ method: c.method as HTTPMethods, url: c.url, headers: c.headers, payload: c.payload }), c);
      status = res.statusCode;
      found = judgeAnswer(c, { status, headers: res.headers, body: res.body }, apiKey);
    } catch (err) {
      found = [{ kind: 'crash', reason: `inject threw: ${(err as Error).message}` }];
    }
    if (crashed) {
      found.push({ kind: 'crash', reason: `uncaught: ${(crashed as Error)?.message ?? crashed}` });
      crashed = undefined;
    }
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    if (status >= 200 && status < 300) cat.accepted++;
    else cat.rejected++;
    // total_changes() moves on any row written by the server's connection; only then is the (slower)
    // digest worth computing. An accepted write moves the baseline; a rejected one must not change it.
    if (epoch.totalChanges() !== before) {
      const now = dbDigest(epoch.ro);
      digests++;
      if (!(status >= 200 && status < 300) && now !== epoch.baseline)
        found.push({ kind: 'persisted-by-rejected-write', reason: `status ${status}, and the database changed` });
      epoch.baseline = now;
    }
    for (const v of found) violations.push({ ...v, c });
    if (found.length > 0) cat.violations++;
  }
}

// The server is still alive and answering after everything it was sent.
const health = await epoch.app
  .inject({ method: 'GET', url: '/console/v1/release_pipelines?limit=1', headers: { 'service-api-key': apiKey } })
  .catch((err: Error) => ({ statusCode: 0, body: err.message }));
if (health.statusCode !== 200)
  violations.push({
    kind: 'crash',
    reason: `the server no longer answers a valid request: ${health.statusCode}`,
    c: { category: 'health', op: 'listReleasePipelines', method: 'GET', url: '/console/v1/release_pipelines?limit=1', headers: {}, expect: 'either' },
  });
const seconds = (Date.now() - started) / 1000;
await endEpoch(epoch);
rmSync(dir, { recursive: true, force: true });

const redactHeaders = (h: FuzzCase['headers']) => JSON.stringify(h).split(apiKey).join('<redacted>');
const show = (p: FuzzCase['payload']) => {
  if (p === undefined) return '(none)';
  const text = Buffer.isBuffer(p) ? p.toString('latin1') : p;
  return `${JSON.stringify(text.slice(0, 200))}${text.length > 200 ? ` ... (${text.length} chars)` : ''}`;
};

console.log(`fuzz: ${sent} requests in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)}/s), seed ${seed}, ${digests} database digests`);
console.log(
  `by status: ${[...byStatus.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s || 'none'}=${n}`)
    .join(' ')}`,
);
console.log('by category:                 sent   4xx/other  2xx  violating');
for (const [name, c] of [...byCategory.entries()].sort())
  console.log(
    `  ${name.padEnd(24)} ${String(c.n).padStart(7)} ${String(c.rejected).padStart(10)} ${String(c.accepted).padStart(5)} ${String(c.violations).padStart(9)}`,
  );

if (violations.length === 0) {
  console.log('fuzz: every property held: no 5xx, no crash, errors in the error shape, malformed requests rejected, nothing persisted by a rejected write');
  process.exit(0);
}
const groups = new Map<string, Violation[]>();
for (const v of violations) {
  const key = `${v.kind} ${v.c.category} ${v.c.op}`;
  groups.set(key, [...(groups.get(key) ?? []), v]);
}
console.log(`\nfuzz: ${violations.length} violations in ${groups.size} groups (kind, category, operation):`);
for (const [key, list] of groups) {
  console.log(`\n  ${key}: ${list.length}`);
  for (const v of list.slice(0, examples)) {
    console.log(`    ${v.reason.split(apiKey).join('<redacted>')}`);
    console.log(`      ${v.c.method} ${v.c.url.length > 200 ? `${v.c.url.slice(0, 200)}... (${v.c.url.length} chars)` : v.c.url}`);
    console.log(`      headers ${redactHeaders(v.c.headers)}`);
    console.log(`      body ${show(v.c.payload)}`);
  }
}
console.log(`\nrepeat with: npm run fuzz -- --runs ${runs} --seed ${seed}`);
process.exit(1);
