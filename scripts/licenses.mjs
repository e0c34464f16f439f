#!/usr/bin/env node
// `npm run licenses:check` (a stage of `npm run check`): every package this project installs or has
// its scripts install carries a licence the dependency policy allows (MIT, Apache-2.0, BSD, ISC,
// MPL-2.0 and the like). Read: package-lock.json and the installed tree (each node_modules package.json),
// Biome as scripts/biome.mjs installs it (.tools/biome), Debian's Chromium (scripts/install-chromium:
// its copyright file), and the Python packages of .venv (Schemathesis, harness/crosscheck). A package
// under AGPL, GPL, LGPL, SSPL, BUSL, a proprietary or unknown licence fails the check, named, unless
// scripts/licenses-allowed.json lists it with the reason it was reviewed and allowed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** SPDX identifiers (upper-cased) of permissive licences, and of data licences met in npm packages. */
export const PERMISSIVE = new Set(
  [
    'MIT',
    'MIT-0',
    'ISC',
    'Apache-2.0',
    'BSD-2-Clause',
    'BSD-3-Clause',
    '0BSD',
    'MPL-2.0',
    'BlueOak-1.0.0',
    'CC0-1.0',
    'CC-BY-3.0',
    'CC-BY-4.0',
    'Unlicense',
    'WTFPL',
    'Zlib',
    'Python-2.0',
    'PSF-2.0',
    'Unicode-DFS-2016',
  ].map((s) => s.toUpperCase()),
);

/** Licences the policy forbids (checked before the permissive list, so that GPL-compatible names do not slip by). */
const FORBIDDEN = /AGPL|(^|[^L])GPL|LGPL|SSPL|BUSL|BSL-1\.1|COMMONS-CLAUSE|ELASTIC|UNLICENSED|PROPRIETARY|SEE LICEN[SC]E/i;

/**
 * Whether an SPDX expression is allowed: OR needs one allowed side (a dual licence may be taken under
 * the permissive one), AND needs both, WITH an exception follows its licence. Undefined or empty is not.
 */
export function allowed(expression) {
  if (typeof expression !== 'string' || expression.trim() === '') return false;
  const tokens = expression
    .replace(/[()]/g, (p) => ` ${p} `)
    .trim()
    .split(/\s+/);
  let at = 0;
  const primary = () => {
    const t = tokens[at++];
    if (t === '(') {
      const v = or();
      at++; // ')'
      return v;
    }
    if (tokens[at] === 'WITH') at += 2;
    const id = (t ?? '').replace(/\+$/, '');
    return !FORBIDDEN.test(id) && PERMISSIVE.has(id.toUpperCase());
  };
  const and = () => {
    let v = primary();
    while (tokens[at] === 'AND') {
      at++;
      v = primary() && v;
    }
    return v;
  };
  const or = () => {
    let v = and();
    while (tokens[at] === 'OR') {
      at++;
      v = and() || v;
    }
    return v;
  };
  return or() && at === tokens.length;
}

/** The licence a package.json states: `license`, or the legacy `licenses` list (joined with OR). */
export function licenseOf(pkg) {
  if (typeof pkg.license === 'string') return pkg.license;
  if (pkg.license && typeof pkg.license.type === 'string') return pkg.license.type;
  if (Array.isArray(pkg.licenses)) {
    const types = pkg.licenses.map((l) => (typeof l === 'string' ? l : l?.type)).filter((t) => typeof t === 'string');
    if (types.length) return types.length === 1 ? types[0] : `(${types.join(' OR ')})`;
  }
  return undefined;
}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** [where, name, version, licence] of every npm package under `prefix` (its lock, checked against its installed tree). */
function npmPackages(prefix, where) {
  const out = [];
  const lockFile = join(prefix, 'package-lock.json');
  const lock = existsSync(lockFile) ? readJson(lockFile) : { packages: {} };
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    if (!path) continue;
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const installed = join(prefix, path, 'package.json');
    // The installed package.json is what ships; the lock's copy of its licence is read when it is not installed (another platform's optional build).
    const license = existsSync(installed) ? licenseOf(readJson(installed)) : entry.license;
    out.push([where, name, entry.version ?? '?', license]);
  }
  return out;
}

/** The licence of Debian's Chromium: its copyright file's `Files: *` paragraph (DEP-5), or undefined. */
function chromiumLicense() {
  const file = '/usr/share/doc/chromium/copyright';
  if (!existsSync(file)) return undefined;
  const paragraph = readFileSync(file, 'utf8')
    .split(/\n\s*\n/)
    .find((p) => /^Files: \*\s*$/m.test(p));
  const m = paragraph && /^License: (.+)$/m.exec(paragraph);
  return m ? m[1].trim().replace(/^BSD-3-clause$/i, 'BSD-3-Clause') : undefined;
}

/** A Python distribution's licence from its METADATA: License-Expression, else License, else its OSI classifiers. */
export function pythonLicense(metadata) {
  const field = (name) => new RegExp(`^${name}: (.+)$`, 'm').exec(metadata)?.[1].trim();
  const expression = field('License-Expression');
  if (expression) return expression;
  const classifiers = [...metadata.matchAll(/^Classifier: License :: (.+)$/gm)].map((m) => m[1].trim());
  const osi = {
    'OSI Approved :: MIT License': 'MIT',
    'OSI Approved :: BSD License': 'BSD-3-Clause',
    'OSI Approved :: Apache Software License': 'Apache-2.0',
    'OSI Approved :: ISC License (ISCL)': 'ISC',
    'OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)': 'MPL-2.0',
    'OSI Approved :: Python Software Foundation License': 'PSF-2.0',
    'OSI Approved :: The Unlicense (Unlicense)': 'Unlicense',
  };
  const named = classifiers.map((c) => osi[c] ?? c);
  if (named.length) return named.length === 1 ? named[0] : `(${named.join(' OR ')})`;
  const license = field('License');
  return license && license.length < 60 ? license : undefined;
}

function pythonPackages() {
  const lib = join(ROOT, '.venv/lib');
  if (!existsSync(lib)) return [];
  const out = [];
  for (const py of readdirSync(lib)) {
    const site = join(lib, py, 'site-packages');
    if (!existsSync(site)) continue;
    for (const dist of readdirSync(site).filter((d) => d.endsWith('.dist-info'))) {
      const meta = join(site, dist, 'METADATA');
      if (!existsSync(meta)) continue;
      const text = readFileSync(meta, 'utf8');
      const name = /^Name: (.+)$/m.exec(text)?.[1].trim() ?? dist;
      out.push(['.venv (PyPI)', name, /^Version: (.+)$/m.exec(text)?.[1].trim() ?? '?', pythonLicense(text)]);
    }
  }
  return out;
}

function main() {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(`usage: npm run licenses:check

Checks the licence of every package installed: package-lock.json and node_modules, Biome in .tools/biome,
Debian's Chromium, the Python packages of .venv. Fails (exit 1), naming each package, on a licence that
is not permissive (AGPL, GPL, LGPL, SSPL, BUSL, proprietary, unknown) and not in scripts/licenses-allowed.json.`);
    return 0;
  }
  const allowList = readJson(join(ROOT, 'scripts/licenses-allowed.json'));
  const packages = [...npmPackages(ROOT, 'npm'), ...npmPackages(join(ROOT, '.tools/biome'), 'biome (.tools/biome)'), ...pythonPackages()];
  const chromium = chromiumLicense();
  if (chromium !== undefined) packages.push(["Debian's chromium", 'chromium', '(apt)', chromium]);
  const failures = [];
  const used = new Set();
  for (const [where, name, version, license] of packages) {
    if (allowed(license)) continue;
    const listed = allowList[`${name}@${version}`] ?? allowList[name];
    if (listed) {
      used.add(allowList[`${name}@${version}`] ? `${name}@${version}` : name);
      continue;
    }
    failures.push(`${where}: ${name}@${version}: ${license === undefined ? 'no licence stated' : `licence ${JSON.stringify(license)}`} is not allowed`);
  }
  for (const f of failures) console.error(`licenses: ${f}`);
  const stale = Object.keys(allowList).filter((k) => !k.startsWith('//') && !used.has(k));
  for (const k of stale) console.error(`licenses: scripts/licenses-allowed.json lists ${k}, which is no longer installed with that licence: remove it`);
  const ok = failures.length === 0 && stale.length === 0;
  console.log(
    `licenses: ${packages.length} packages checked (npm, Biome${chromium ? ', Chromium' : ''}${packages.some((p) => p[0].startsWith('.venv')) ? ', .venv' : ''}), ${used.size} allowed by review${ok ? '' : `, ${failures.length + stale.length} problems`}`,
  );
  return ok ? 0 : 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main();
