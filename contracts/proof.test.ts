// npm run clauses:proof, end to end on one generated fault: the real reference server, the real suite.
// The map it writes claims the fault's own clause, in the shape the report reads; --verify reruns the
// fault and finds every claimed pair again; a claim the rerun does not make is exit 1, named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../core/config.ts';
import type { ClauseProof } from '../core/formats.ts';

const FAULT = 'gen:message:pipelines.list.message';

function proof(...args: string[]) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CONSOLE_')));
  return spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'contracts/proof.ts'), ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 240_000,
  });
}

test('clauses:proof: one fault mapped to the clause it breaks, and the pair holds when rerun', (t) => {
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

  const verified = proof('--verify', out, '--lanes', '1');
  assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  assert.match(verified.stdout, /ok +gen:message:pipelines\.list\.message +all \d+ claimed failed again/);

  // A pair the rerun cannot make: the map says the fault also fails envelope.data.
  run!.fails.push('envelope.data');
  writeFileSync(out, JSON.stringify(map));
  const wrong = proof('--verify', out, '--lanes', '1');
  assert.equal(wrong.status, 1, wrong.stdout + wrong.stderr);
  assert.match(wrong.stdout, /BAD +gen:message:pipelines\.list\.message +1 of \d+ claimed NOT failed again \(envelope\.data;/);
});
