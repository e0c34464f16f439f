// npm run scan:secrets -- [--key K | --key-file F] [DIR...]
// Looks through everything a run wrote, ZIP archives included, for the API key and its near misses
// (case-changed, one character short): raw, URL-encoded, base64 and hex. The key is never printed;
// only the files holding it are. Exit 0 clean, 1 found, 3 cannot scan.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ConfigError, ROOT, loadConfig, reportsDirFromEnv } from '../core/config.ts';
import { parseCommand, runCommand } from '../core/command.ts';
import { scan } from '../core/scan.ts';

const HELP = `usage: npm run scan:secrets -- [--key K | --key-file F] [DIR...]

Scans DIRs for the API key and its near misses (upper- and lower-cased, one character short at
either end), raw and encoded (URL, base64 at any alignment, hex), and prints the files that hold
any of them, never the key. ZIP archives are looked into (.zip files, and the base64 ZIP that
Playwright's HTML report embeds). Default DIRs: reports/ (CONSOLE_REPORTS_DIR when set; with the load
outputs in load/ and server logs), test-results/, playwright-report/, blob-report/ (those that exist).

  --key K        the key to look for (default: $CONSOLE_API_KEY)
  --key-file F   read the key from file F
  --help         this text

Exit 0 clean, 1 the key was found, 3 cannot scan (no key, no folder to scan).`;

/** The scan as a command: which key, which folders; resolves to the exit code (0 clean, 1 found, 3 cannot scan). */
export function scanCommand(opts: { key?: string; keyFile?: string; dirs: string[] }): number {
  let key = opts.key;
  const dirs = opts.dirs;
  if (key === '') return fail('--key needs a value');
  if (opts.keyFile !== undefined) {
    try {
      key = readFileSync(opts.keyFile, 'utf8').trim();
    } catch (err) {
      return fail(`cannot read --key-file ${opts.keyFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  try {
    key ??= loadConfig().apiKey;
  } catch (err) {
    if (err instanceof ConfigError) return fail(err.message);
    throw err;
  }
  if (!key) return fail('no key to look for: set CONSOLE_API_KEY or pass --key');
  if (key.length < 8) return fail('the key is shorter than 8 characters: too short to scan for without false alarms');
  // The reports folder of the runs (CONSOLE_REPORTS_DIR, else reports/), where they wrote.
  const targets = dirs.length > 0 ? dirs : [reportsDirFromEnv(), ...['test-results', 'playwright-report', 'blob-report'].map((d) => join(ROOT, d))];
  if (!targets.some((d) => existsSync(d))) return fail(`nothing to scan: none of ${targets.map((d) => relative(ROOT, d) || d).join(', ')} exists`);
  const { scanned, found } = scan(targets, key);
  if (found.length > 0) {
    console.error(`scan:secrets: the API key appears in ${found.length} of ${scanned} files:\n  ${found.map((f) => relative(ROOT, f)).join('\n  ')}`);
    return 1;
  }
  console.log(`scan:secrets: ${scanned} files scanned, no trace of the API key or a near miss of it (raw, URL, base64, hex)`);
  return 0;
}

function fail(reason: string): number {
  console.error(`scan:secrets: ${reason}`);
  return 3;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const { values, positionals } = parseCommand({
    name: 'scan:secrets',
    help: HELP,
    positionals: true,
    options: { key: { type: 'string' }, 'key-file': { type: 'string' } },
  });
  runCommand('scan:secrets', () => scanCommand({ key: values.key, keyFile: values['key-file'], dirs: positionals }));
}
