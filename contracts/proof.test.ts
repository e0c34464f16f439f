// npm run clauses:proof, end to end on one generated fault: the real reference server, the real suite.
// The map it writes claims the fault's own clause, in the shape the report reads; --verify reruns the
// fault and finds every claimed pair again; a claim the rerun does not make is exit 1, named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import type { ClauseProof } from '../core/formats.ts';
import { TS_NODE_OPTIONS } from '../core/package.ts';

const FAULT = 'gen:message:pipelines.list.message';

const env = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_')));
const PROOF = [...TS_NODE_OPTIONS, join(ROOT, 'contracts/proof.ts')];

function proof(...args: string[]) {
  return spawnSync(process.execPath, [...PROOF, ...args], { cwd: ROOT, env: env(), encoding: 'utf8', timeout: 240_000 });
}

/** The same, without blocking: two reruns of one map (each its own reference server and temporary reports) go side by side. */
function proofAsync(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [...PROOF, ...args], { cwd: ROOT, env: env(), timeout: 240_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

test('clauses:proof: one fault mapped to the clause it breaks, and the pair holds when rerun', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-proof-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out = join(dir, 'clause-proof.json');
  const made = proof('--only', FAULT, '--lanes', '1', '--out', out);
  assert.equal(made.status, 0, made.stderr);
  assert.match(made.stdout, new RegExp(`\\[1/1\\] .* ${FAULT.replace(/\./g, '\\.')} +fails pipelines\\.list\\.message`));
  const map = JSON.parse(readFileSync(out, 'utf8')) as ClauseProof;
  assert.equal(map.format, 'console-conformance.clause-proof/1');
  assert.equal(map.partial, true, 'one fault of many: partial');
  const run = map.faults.find((r) => r.name === FAULT);
  assert.ok(run?.fails.includes('pipelines.list.message'), JSON.stringify(run));
  assert.equal(run?.generated, 'message');
  assert.ok(map.clauses.find((c) => c.id === 'pipelines.list.message')?.provedBy.includes(FAULT));
  assert.equal(map.clauses.find((c) => c.id === 'envelope.data')?.provedBy.length, 0, 'a clause this fault does not break');

  // A pair the rerun cannot make: a copy of the map says the fault also fails envelope.data. Both maps
  // are rerun at once.
  const wrongOut = join(dir, 'clause-proof-wrong.json');
  run!.fails.push('envelope.data');
  writeFileSync(wrongOut, JSON.stringify(map));
  const [verified, wrong] = await Promise.all([proofAsync('--verify', out, '--lanes', '1'), proofAsync('--verify', wrongOut, '--lanes', '1')]);
  assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  assert.match(verified.stdout, /ok +gen:message:pipelines\.list\.message +all \d+ claimed failed again/);
  assert.equal(wrong.status, 1, wrong.stdout + wrong.stderr);
  assert.match(wrong.stdout, /BAD +gen:message:pipelines\.list\.message +1 of \d+ claimed NOT failed again \(envelope\.data;/);
});
