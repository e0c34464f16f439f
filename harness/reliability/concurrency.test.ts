// Concurrency: 50 concurrent add-rules calls on one gate lose no rule, and 50 concurrent
// updates of one metric leave it equal to exactly one of them; no 5xx. Through the real server.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, loadManifest } from '../../core/config.ts';
import { callServer, startServer, type Server } from './server.ts';
import { DIRECTIONALITIES } from '../../contracts/index.ts';

const N = 50;
let server: Server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

test(`concurrency: ${N} concurrent add-rules on one gate keep every rule, in one piece`, { timeout: 30_000 }, async () => {
  const gate = loadManifest(join(ROOT, 'fixtures/targets/reference.json')).gates[0];
  const start = await callServer(server, 'POST', `/console/v1/gates/${gate}/rules`, { rules: [] });
  assert.equal(start.status, 200);
  const existing = (start.body.data.rules as { id: string }[]).length;
  // Two rules per call: a torn write would show as one rule of a pair without the other.
  const answers = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      callServer(server, 'POST', `/console/v1/gates/${gate}/rules`, {
        rules: [
          { id: `rule_c_${i}_a`, name: `c ${i} a`, passPercentage: i },
          { id: `rule_c_${i}_b`, name: `c ${i} b`, passPercentage: i },
        ],
      }),
    ),
  );
  assert.deepEqual(
    answers.map((a) => a.status).filter((s) => s !== 200),
    [],
    'every call answered 200',
  );
  const end = await callServer(server, 'POST', `/console/v1/gates/${gate}/rules`, { rules: [] });
  const ids = (end.body.data.rules as { id: string }[]).map((r) => r.id);
  assert.equal(ids.length, existing + 2 * N, 'rule count');
  for (let i = 0; i < N; i++) {
    const a = ids.indexOf(`rule_c_${i}_a`);
    assert.ok(a >= 0, `rule ${i} lost`);
    assert.equal(ids[a + 1], `rule_c_${i}_b`, `rules of call ${i} not kept together`);
  }
  assert.equal(new Set(ids).size, ids.length, 'no rule duplicated');
});

test(`concurrency: ${N} concurrent updates of one metric leave it equal to one of them`, { timeout: 30_000 }, async () => {
  const created = await callServer(server, 'POST', '/console/v1/metrics', { name: 'cc_concurrency_metric', type: 'mean' });
  assert.ok(created.status >= 200 && created.status < 300, `create answered ${created.status}`);
  const id = encodeURIComponent(created.body.data.id);
  const update = (i: number) => ({
    description: `update ${i}`,
    tags: [`t${i}`, `u${i}`],
    isVerified: i % 2 === 0,
    directionality: DIRECTIONALITIES[i % DIRECTIONALITIES.length],
  });
  const answers = await Promise.all(Array.from({ length: N }, (_, i) => callServer(server, 'POST', `/console/v1/metrics/${id}`, update(i))));
  assert.deepEqual(
    answers.map((a) => a.status).filter((s) => s !== 200),
    [],
    'every update answered 200',
  );
  // Each answer shows its own update applied in full.
  answers.forEach((a, i) => assert.equal(a.body.data.description, `update ${i}`));
  const final = (await callServer(server, 'POST', `/console/v1/metrics/${id}`, { dryRun: true })).body.data;
  const match = /^update (\d+)$/.exec(final.description);
  assert.ok(match, `final description ${JSON.stringify(final.description)}`);
  const expected = update(Number(match[1]));
  // Every updated field comes from the same update: no mix of two writers.
  assert.deepEqual({ description: final.description, tags: final.tags, isVerified: final.isVerified, directionality: final.directionality }, expected);
});
