// The figures the docs state about the project as it is (clauses by level, faults, legal variants, npm
// test's stages, the conformance suite's tests), each read from its source, with the phrasings the docs use for it. docs.test.ts holds
// every such phrase of every doc to its source; `npm run docs:update -- --figures` rewrites them. A figure
// of a past run (a time, a count a run reported) is a measurement: it goes into docs/measurements.md with
// its date and commit, the one doc these phrases are not held in.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../../core/config.ts';
import { FAULTS, VARIANTS } from '../../reference/faults.ts';

export interface Figure {
  /** What is counted, as a message names it. */
  name: string;
  /** Where the count comes from. */
  source: string;
  value: number;
  /** The phrasings that state it: each matches the number alone (the words around it by lookaround). */
  phrases: RegExp[];
}

/** The docs that hold no figure of the present: dated measurements, and the history of changes. */
export const DATED = new Set(['docs/measurements.md', 'CHANGELOG.md']);

const n = String.raw`\d[\d,]*`;

/** A phrase as written with single spaces, matched across any run of white space (a line break in a paragraph). */
const spaced = (re: RegExp) => new RegExp(re.source.replace(/ /g, String.raw`\s+`), re.flags);

/**
 * The conformance suite's tests as declared: each `test(` that opens a line of a `*.spec.ts` under
 * contracts/conformance/ (playwright.config.ts's testDir and testMatch). Read, not listed, so that the
 * docs test stays in process; scripts/doc-figures.test.ts holds it to Playwright's own `--list`.
 */
export function conformanceTests(root = ROOT): number {
  const dir = join(root, 'contracts/conformance');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.spec.ts'))
    .reduce((sum, f) => sum + [...readFileSync(join(dir, f), 'utf8').matchAll(/^\s*test\(/gm)].length, 0);
}

/** Every figure, read from its source now. */
export function figures(root = ROOT): Figure[] {
  return listed(root).map((f) => ({ ...f, phrases: f.phrases.map(spaced) }));
}

function listed(root: string): Figure[] {
  const clauses = (parse(readFileSync(join(root, 'contracts/clauses.yaml'), 'utf8')) as { clauses: { level: string }[] }).clauses;
  const level = (l: string) => clauses.filter((c) => c.level === l).length;
  const stages = [...readFileSync(join(root, 'scripts/test.mjs'), 'utf8').matchAll(/^ {2}\['[\w:]+', '/gm)].length;
  const catalogue = 'contracts/clauses.yaml';
  return [
    { name: 'clauses', source: catalogue, value: clauses.length, phrases: [new RegExp(`(?<=\\()${n}(?=: ${n} stated,\\s+${n}\\s+inferred)`, 'g')] },
    {
      name: 'stated clauses',
      source: catalogue,
      value: level('stated'),
      phrases: [
        new RegExp(`\\b${n}(?= stated,\\s+${n}\\s+inferred)`, 'g'),
        new RegExp(`(?<=\\b${n}(?:\\/| of ))${n}(?= stated clauses)`, 'g'),
        new RegExp(`(?<=\\bthe )${n}(?= stated and ${n} inferred clauses)`, 'g'),
      ],
    },
    {
      name: 'inferred clauses',
      source: catalogue,
      value: level('inferred'),
      phrases: [new RegExp(`(?<=\\b${n} stated,\\s+)${n}(?=\\s+inferred)`, 'g'), new RegExp(`(?<=\\bthe ${n} stated and )${n}(?= inferred clauses)`, 'g')],
    },
    { name: 'open clauses', source: catalogue, value: level('open'), phrases: [new RegExp(`(?<=\\b${n}\\s+inferred,?(?: and)?\\s+)${n}(?=\\s+open)`, 'g')] },
    {
      name: 'hand-written faults',
      source: 'reference/faults.ts (FAULTS)',
      value: FAULTS.length,
      phrases: [
        new RegExp(`\\b${n}(?= (?:hand-written )?(?:injected )?faults and ${n} legal variants)`, 'g'),
        new RegExp(`\\b${n}(?= hand-written injected faults)`, 'g'),
      ],
    },
    {
      name: 'legal variants',
      source: 'reference/faults.ts (VARIANTS)',
      value: VARIANTS.length,
      phrases: [new RegExp(`(?<=faults and )${n}(?= legal variants)`, 'g'), new RegExp(`(?<=\\beach of )${n}(?= legal variations)`, 'g')],
    },
    {
      name: 'variants that pass under --strict',
      source: "reference/faults.ts (VARIANTS, strict: 'pass')",
      value: VARIANTS.filter((v) => v.strict === 'pass').length,
      phrases: [new RegExp(`(?<=the suite must pass: )${n}(?= under \`--strict\`)`, 'g')],
    },
    {
      name: 'variants that meet an inferred clause',
      source: "reference/faults.ts (VARIANTS, strict: 'warns')",
      value: VARIANTS.filter((v) => v.strict === 'warns').length,
      phrases: [new RegExp(`\\b${n}(?= that meet an inferred clause)`, 'g')],
    },
    { name: 'npm test stages', source: 'scripts/test.mjs', value: stages, phrases: [new RegExp(`(?<=runs these )${n}(?= stages)`, 'g')] },
    {
      name: 'conformance tests',
      source: 'contracts/conformance/ (test declarations)',
      value: conformanceTests(root),
      // "34/78 tests" (verify's progress line), "6 of 78 tests" (a stop line), "78/78 tests passed" (a verdict).
      phrases: [new RegExp(`(?<=\\b${n}(?:\\/| of ))${n}(?= tests\\b)`, 'g')],
    },
  ];
}

/** Each phrase of `doc` that states a figure other than its source's: line, what it says, what it should. */
export function staleFigures(doc: string, all: Figure[]): { line: number; figure: string; stated: number; source: string; value: number }[] {
  const out: { line: number; figure: string; stated: number; source: string; value: number }[] = [];
  for (const f of all)
    for (const re of f.phrases)
      for (const m of doc.matchAll(re)) {
        const stated = Number(m[0].replace(/,/g, ''));
        if (stated !== f.value) out.push({ line: doc.slice(0, m.index).split('\n').length, figure: f.name, stated, source: f.source, value: f.value });
      }
  return out;
}

/** `doc` with every figure phrase made its source's value. */
export function withFigures(doc: string, all: Figure[]): string {
  let out = doc;
  for (const f of all) for (const re of f.phrases) out = out.replace(re, String(f.value));
  return out;
}
