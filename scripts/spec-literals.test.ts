// No fact of the spec is typed as a literal outside what contracts:build generates from it: a success
// message, a list of allowed values, a value of one, a default set where the field is named, or a bound
// (the limit, one past it, one short of it) where a length or a count is built. Each such literal is a
// hand copy that a revision of the spec would leave behind (docs/spec-changes.md). The facts are read
// from contracts/facts.ts, so the guard follows the spec too. A line that gives a value a meaning of its
// own (the reference's seed: which status has a launched group) says so with `spec-literal: <reason>`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../core/config.ts';
import { repositoryFiles } from '../core/repository-files.ts';
import { SPEC_ALLOWED, SPEC_DEFAULTS, SPEC_LIMITS, SPEC_MESSAGES, SPEC_MESSAGES_SEEN, SPEC_RESOURCE_ALLOWED } from '../contracts/index.ts';

// What is generated from the spec, or reads the spec's words rather than its values.
const GENERATED = [/^contracts\/facts\.ts$/, /^contracts\/schemas\//, /^contracts\/model\//, /^load\/data\//];

function sources(): string[] {
  return repositoryFiles().filter((f) => /\.(ts|mjs)$/.test(f) && !GENERATED.some((g) => g.test(f)));
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const lists = [...Object.values(SPEC_ALLOWED), ...Object.values(SPEC_RESOURCE_ALLOWED)].flatMap((fields) => Object.values(fields) as readonly string[][]);
const messages = [...new Set([...Object.values(SPEC_MESSAGES), ...SPEC_MESSAGES_SEEN])] as string[];

/** The bounds of a limit as a test or a fault builds them: the limit and its neighbours. */
function boundsOf(limit: number): number[] {
  return [limit - 1, limit, limit + 1];
}
const bounds = Object.values(SPEC_LIMITS).flatMap((fields) =>
  Object.values(fields as Record<string, Record<string, number>>).map((l) => ({
    low: l.minLength !== undefined ? boundsOf(l.minLength) : [],
    high: [l.maxLength, l.maxItems].filter((v): v is number => v !== undefined).flatMap(boundsOf),
  })),
);
const high = new Set(bounds.flatMap((b) => b.high));
const limitedFields = new RegExp(
  `\\b(${Object.values(SPEC_LIMITS)
    .flatMap((fields) => Object.keys(fields))
    .join('|')})`,
  'i',
);
const low = new Set(bounds.flatMap((b) => b.low));

/** The literal facts on one line of code, each with why it is one. */
export function literalFacts(line: string): string[] {
  const found: string[] = [];
  const code = line.replace(/^\s*(\/\/|\*).*$/, '');
  if (!code.trim()) return found;
  for (const m of messages) if (new RegExp(`(['"\`])${escapeRegExp(m)}\\1`).test(code)) found.push(`the message ${JSON.stringify(m)}`);
  const strings = [...code.matchAll(/(['"])((?:(?!\1).)*)\1/g)].map((s) => s[2]);
  for (const list of lists) {
    const listed = strings.filter((s) => list.includes(s));
    if (new Set(listed).size >= 2) found.push(`a list of allowed values (${[...new Set(listed)].join(', ')})`);
    for (const s of new Set(listed)) if (s.includes('_') && listed.length === 1) found.push(`the allowed value ${s}`);
  }
  for (const [, fields] of Object.entries(SPEC_DEFAULTS))
    for (const [field, value] of Object.entries(fields as Record<string, string>))
      if (new RegExp(`\\b${field}['"]?\\s*:\\s*['"]${escapeRegExp(value)}['"]`).test(code)) found.push(`the default ${field} ${value}`);
  // A string or a list built to a length: `x.repeat(N)`, `padEnd(N, ...)`, `Array(N)`, `{ length: N }`. A
  // small bound counts only where text is repeated to it (a column padded to 4 is no name of 4).
  for (const m of code.matchAll(/\b(repeat|padEnd|padStart|Array)\(\s*(\d+)\b|\blength:\s*(\d+)\b/g)) {
    const n = Number(m[2] ?? m[3]);
    if (high.has(n)) found.push(`the bound ${n} built into a length or a count`);
    if (low.has(n) && m[1] === 'repeat') found.push(`the bound ${n} built into a length`);
  }
  // A length or a count compared with a bound, on a line about a field the spec bounds (`name.length > N`);
  // output cut to a width (`text.length > 200 ? ...`) is no such comparison.
  if (limitedFields.test(code))
    for (const m of code.matchAll(/\.length\s*[<>]=?\s*(\d+)\b/g)) if (high.has(Number(m[1]))) found.push(`the bound ${m[1]} compared with a length`);
  for (const m of code.matchAll(/\[\s*(\d+)\s*,\s*(\d+)\s*\]/g)) {
    const [a, b] = [Number(m[1]), Number(m[2])];
    if (bounds.some((x) => x.low.includes(a) && x.high.includes(b))) found.push(`the bounds [${a}, ${b}]`);
  }
  return found;
}

test('spec literals: the guard finds each kind of hand copy, and passes the contract read', () => {
  const [message] = messages;
  const list = lists.find((l) => l.length >= 2) ?? [];
  const limit = [...high][1];
  assert.ok(literalFacts(`expectMessage(op, body, '${message}');`).length > 0, 'a message');
  assert.ok(literalFacts(`const types = ['${list[0]}', '${list[1]}'];`).length > 0, 'a list of allowed values');
  assert.ok(literalFacts(`const name = 'x'.repeat(${limit});`).length > 0, 'a bound');
  assert.ok(literalFacts(`for (const n of [${[...low][0]}, ${[...high][2]}]) {}`).length > 0, 'both bounds');
  assert.ok(literalFacts(`if (name.length > ${limit}) abort();`).length > 0, 'a length compared with a bound');
  assert.deepEqual(literalFacts(`const cut = text.length > ${limit} ? text.slice(0, ${limit}) : text;`), [], 'output cut to a width');
  assert.deepEqual(literalFacts("const name = 'x'.repeat(SPEC_LIMITS.createMetric.name.maxLength + 1);"), []);
  assert.deepEqual(literalFacts(`// the spec says '${message}'`), [], 'a comment may quote the spec');
});

test('spec literals: no file outside what contracts:build generates types a fact of the spec', () => {
  const problems: string[] = [];
  for (const file of sources()) {
    if (file === 'scripts/spec-literals.test.ts') continue;
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      // A value given a meaning of its own (which status has a launched group) may stand, with its reason.
      if (/spec-literal: \S.{8,}/.test(`${lines[i - 1] ?? ''} ${line}`)) return;
      for (const why of literalFacts(line)) problems.push(`${file}:${i + 1}: ${why}`);
    });
  }
  assert.deepEqual(problems, [], `take these from contracts/index.ts (SPEC_MESSAGES, SPEC_LIMITS, SPEC_ALLOWED, SPEC_DEFAULTS):\n${problems.join('\n')}`);
});
