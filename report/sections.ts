// Headings of the spec's sections, so the page can say "4.4 List experiments" rather than "4.4".
// Read from the spec's committed copy (contracts/spec/console-v1.md), not typed again here; the part
// in parentheses is dropped ("2.2 Gate (as returned in `data`)" is labelled "2.2 Gate"). Labels
// only: the clauses and their text come from the catalogue.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';

export const SECTION_TITLES: Record<string, string> = Object.fromEntries(
  readFileSync(join(ROOT, 'contracts/spec/console-v1.md'), 'utf8')
    .split('\n')
    .map((line) => line.match(/^#{2,6} (\d+(?:\.\d+)?)\.? (.+?)(?: \(.*\))?$/))
    .filter((m) => m !== null)
    .map((m) => [m[1], m[2]]),
);

export const sectionLabel = (s: string | null) => (s === null ? 'no section' : SECTION_TITLES[s] ? `${s} ${SECTION_TITLES[s]}` : s);
