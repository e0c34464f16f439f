// The secret scan: every file under the given folders, ZIP archives included, looked through for the
// API key and its near misses (case-changed, one character short, its first half), raw, URL-encoded,
// base64 and hex.
// In the kernel because verify, npm test and the transport benchmark all scan what a run wrote.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { keyForms } from './keys.ts';
import { embeddedZips, isZip, zipEntries } from './zip.ts';

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile()) yield path;
  }
}

/**
 * Where in `bytes` a form of the key is: '' for the bytes themselves, '!ENTRY' for an entry of a ZIP
 * archive they are or embed (Playwright's HTML report holds its data as a base64 ZIP, a blob report
 * is a ZIP: compressed, the key would not show), undefined when nowhere. An entry that cannot be
 * read is reported as holding it: a scan must not pass what it could not look at.
 */
function whereIn(bytes: Buffer, forms: Buffer[], depth: number): string | undefined {
  if (forms.some((f) => bytes.includes(f))) return '';
  if (depth >= 3) return undefined;
  const zips = isZip(bytes) ? [bytes] : embeddedZips(bytes.toString('latin1'));
  for (const zip of zips) {
    let entries;
    try {
      entries = zipEntries(zip);
    } catch {
      continue; // base64 that only looked like a ZIP
    }
    for (const e of entries) {
      if (e.problem) return `!${e.name} (cannot be read: ${e.problem})`;
      const inner = whereIn(e.data!, forms, depth + 1);
      if (inner !== undefined) return `!${e.name}${inner}`;
    }
  }
  return undefined;
}

/** Files under `dirs` that hold any form of `key`, also inside ZIP archives (file!entry). */
export function scan(dirs: string[], key: string): { scanned: number; found: string[] } {
  const forms = keyForms(key).map((f) => Buffer.from(f));
  let scanned = 0;
  const found: string[] = [];
  for (const dir of dirs) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) continue;
    for (const file of files(dir)) {
      scanned++;
      const where = whereIn(readFileSync(file), forms, 0);
      if (where !== undefined) found.push(file + where);
    }
  }
  return { scanned, found };
}
