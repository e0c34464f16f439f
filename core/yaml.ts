// The project's own YAML files (contracts/clauses.yaml, 117 KB; contracts/openapi.yaml), parsed once per
// content and then read as JSON. Every Playwright runner and worker, reference server and command that
// reads them used to load the yaml package and parse the text again: about 0.3 s of CPU a process, paid
// twice by each of the self-test's ~150 suite runs. JSON.parse of the same data takes under a
// millisecond. The copy is kept in the temporary directory under the hash of the text, so a changed file
// is a new name (a stale copy is never read), and it is written to a private file and renamed, so a
// process never reads a half-written one.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// One folder per user, private: a copy another user put there would be read as the project's file.
const CACHE = join(tmpdir(), `console-conformance-yaml-${process.getuid?.() ?? 'user'}`);

/** The parsed YAML file at `path` (a path or file: URL), from the JSON copy of its text when one is there. */
export function readYaml(path: string | URL): unknown {
  const text = readFileSync(path, 'utf8');
  // The package's version is part of the key: another parser may parse the same text differently.
  const copy = join(CACHE, `${createHash('sha256').update(`${PARSER_VERSION}\n${text}`).digest('hex')}.json`);
  try {
    return JSON.parse(readFileSync(copy, 'utf8'));
  } catch {
    // No copy yet (or an unreadable one): parse, and keep the copy for the next process.
  }
  const parsed = parseYaml(text);
  try {
    mkdirSync(CACHE, { recursive: true, mode: 0o700 });
    const partial = `${copy}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(parsed));
    renameSync(partial, copy);
  } catch {
    // A temporary directory that cannot be written only costs the next process the parse.
  }
  return parsed;
}

// Loaded on a miss only: loading the package is a third of the cost.
const require = createRequire(import.meta.url);
const PARSER_VERSION: string = require('yaml/package.json').version;
function parseYaml(text: string): unknown {
  return (require('yaml') as typeof import('yaml')).parse(text);
}
