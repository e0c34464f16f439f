import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createdMs, createdRule, fieldRule } from './experiment-filters.ts';

const DAY = 86_400_000;
const at = (iso: string) => Date.parse(iso);

test('a field filter judges the experiments that carry the field, a null value included, and matches the value', () => {
  const r = fieldRule('status', 'active');
  assert.equal(r.judged({ id: 'a' }), false);
  assert.equal(r.judged(null), false);
  assert.equal(r.judged({ id: 'a', status: null }), true);
  assert.equal(r.matches({ id: 'a', status: null }), false);
  assert.equal(r.matches({ id: 'a', status: 'active' }), true);
  assert.equal(r.matches({ id: 'a', status: 'setup' }), false);
});

test('targetAppID selects by an element of targetApps and tags by an element of tags', () => {
  const app = fieldRule('targetAppID', 'app1');
  assert.equal(app.judged({ targetAppID: 'app1' }), false, 'the experiment shows targetApps, not targetAppID');
  assert.equal(app.matches({ targetApps: ['app0', 'app1'] }), true);
  assert.equal(app.matches({ targetApps: 'app1' }), false);
  const tag = fieldRule('tags', 'beta');
  assert.equal(tag.matches({ tags: ['beta'] }), true);
  assert.equal(tag.matches({ tags: [] }), false);
  assert.equal(tag.matches({ tags: null }), false);
});

test('timestamps above 1e11 are milliseconds, others seconds', () => {
  assert.equal(createdMs(1_700_000_000), 1_700_000_000_000);
  assert.equal(createdMs(1_700_000_000_000), 1_700_000_000_000);
});

test('a created-date window judges only experiments more than a day outside each bound, whatever the unit', () => {
  const start = createdRule({ start: '2026-05-10' });
  // Within a day of the start day's UTC span: any time zone may put it on either side.
  for (const t of [at('2026-05-09T00:00:00Z'), at('2026-05-10T12:00:00Z'), at('2026-05-11T23:59:59Z')]) assert.equal(start.judged({ createdTime: t }), false);
  assert.equal(start.judged({ createdTime: at('2026-05-12T00:00:00Z') }), true);
  assert.equal(start.matches({ createdTime: at('2026-05-12T00:00:00Z') }), true);
  assert.equal(start.judged({ createdTime: (at('2026-05-08T23:59:59Z') / 1000) | 0 }), true, 'seconds are read as seconds');
  assert.equal(start.matches({ createdTime: (at('2026-05-08T23:59:59Z') / 1000) | 0 }), false);
  assert.equal(start.judged({ createdTime: '2026-05-20' }), false, 'a timestamp that is not a number is not judged');

  const both = createdRule({ start: '2026-05-01', end: '2026-05-08' });
  assert.equal(both.matches({ createdTime: at('2026-05-05T00:00:00Z') }), true);
  assert.equal(both.judged({ createdTime: at('2026-05-08T00:00:00Z') + 2 * DAY - 1 }), false);
  assert.equal(both.judged({ createdTime: at('2026-05-08T00:00:00Z') + 2 * DAY }), true);
  assert.equal(both.matches({ createdTime: at('2026-05-08T00:00:00Z') + 2 * DAY }), false);
  assert.equal(both.matches({ createdTime: at('2026-04-29T00:00:00Z') }), false);
});
