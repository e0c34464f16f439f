// The licence check of npm run check: which SPDX expressions pass, how a package states its licence,
// and the real installed tree passing (scripts/licenses.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../core/config.ts';
import { allowed, licenseOf, pythonLicense } from './licenses.mjs';

test('permissive licences pass; AGPL, GPL, LGPL, SSPL, BUSL, proprietary and unknown ones do not', () => {
  for (const ok of [
    'MIT',
    'Apache-2.0',
    'BSD-3-Clause',
    'ISC',
    'MPL-2.0',
    '(MIT OR CC0-1.0)',
    '(MIT AND Zlib)',
    'BlueOak-1.0.0',
    'Apache-2.0 WITH LLVM-exception',
  ])
    assert.equal(allowed(ok), true, ok);
  for (const no of [
    'AGPL-3.0',
    'AGPL-3.0-only',
    'GPL-2.0',
    'GPL-3.0+',
    'LGPL-2.1',
    'SSPL-1.0',
    'BUSL-1.1',
    'UNLICENSED',
    'SEE LICENSE IN LICENSE.md',
    'Proprietary',
    '',
    undefined,
    'Some-New-Licence',
  ])
    assert.equal(allowed(no), false, String(no));
  // A dual licence may be taken under its permissive side; a conjunction needs every part.
  assert.equal(allowed('(GPL-2.0 OR MIT)'), true);
  assert.equal(allowed('(MIT AND GPL-3.0)'), false);
});

test('a package states its licence in `license`, an object, or the legacy `licenses` list', () => {
  assert.equal(licenseOf({ license: 'MIT' }), 'MIT');
  assert.equal(licenseOf({ license: { type: 'ISC' } }), 'ISC');
  assert.equal(licenseOf({ licenses: [{ type: 'MIT' }, { type: 'Apache-2.0' }] }), '(MIT OR Apache-2.0)');
  assert.equal(licenseOf({}), undefined);
  assert.equal(pythonLicense('Name: x\nLicense-Expression: MIT\n'), 'MIT');
  assert.equal(pythonLicense('Name: x\nClassifier: License :: OSI Approved :: BSD License\n'), 'BSD-3-Clause');
  assert.equal(allowed(pythonLicense('Name: x\nClassifier: License :: OSI Approved :: GNU General Public License v3 (GPLv3)\n')), false);
});

test('the installed tree, Biome and Chromium pass the check', () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/licenses.mjs')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^licenses: \d{3,} packages checked/);
});
