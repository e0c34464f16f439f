// When a paired run's candidate cannot be timed: its network answered more of its requests than the
// profile's budget (the budget the current's own answers are held to), or the asked load was not delivered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TransportKind } from '../../core/transport-rule.ts';
import { newCandidate, newEndpoint, newRecords, type Records } from '../lib/runtime.ts';
import { candidateNetwork, pairedRunUnjudged } from '../compare/paired-judge.ts';

const records = (network: number, own: number, kind: TransportKind = 'not-json'): Records => ({
  endpoints: {
    'listExperiments.page1': { ...newEndpoint(), candidate: { ...newCandidate(), answers: network + own, network: network ? { [kind]: network } : {} } },
  },
  checks: {},
  counters: {},
});

test('candidateNetwork: over the profile budget the run is not timed, naming the kinds; within it, or without the metric, it is', () => {
  assert.equal(candidateNetwork(records(0, 500), 'smoke'), undefined);
  assert.equal(candidateNetwork(newRecords(), 'smoke'), undefined);
  // smoke allows none, baseline one in a thousand.
  assert.match(
    candidateNetwork(records(1, 999, 'no-response'), 'smoke') ?? '',
    /^the candidate's network answered 1 of its 1000 requests, not the candidate \(1 no-response; more than the smoke profile's 0%\)/,
  );
  assert.equal(candidateNetwork(records(1, 999), 'baseline'), undefined);
  assert.match(candidateNetwork(records(3, 997), 'baseline') ?? '', /3 of its 1000 .*baseline profile's 0.1%/);
});

test('pairedRunUnjudged: a paired run whose load fell short is not judged, whatever its network did', () => {
  const short = {
    asked: 1000,
    started: 500,
    dropped: 500,
    shortfall: 0.5,
    ok: false,
    note: 'the load fell short: 500 of 1000 arrivals started',
    generators: [],
  };
  assert.equal(pairedRunUnjudged({ records: records(0, 500), delivery: short }, 'smoke'), short.note);
  assert.equal(pairedRunUnjudged({ records: records(0, 500), delivery: { ...short, started: 1000, dropped: 0, shortfall: 0, ok: true } }, 'smoke'), undefined);
  assert.equal(pairedRunUnjudged({ records: records(0, 500) }, 'smoke'), undefined, 'a run without a delivery figure is judged on its pairs');
  assert.match(pairedRunUnjudged({ records: records(1, 999) }, 'smoke') ?? '', /the candidate's network answered 1 of its 1000/);
});
