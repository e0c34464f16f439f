// The segments of N runners are the k6 operator's (pkg/segmentation), and together they cover the test once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunSummary } from '../../core/formats.ts';
import { checkSegments } from '../compare/merge.ts';
import { segmentArgs, segmentsFor } from './segments.ts';

test('segments and sequence as the operator writes them for parallelism 1, 2 and 4', () => {
  assert.deepEqual(segmentsFor(1), { sequence: '0,1', segments: ['0:1'] });
  assert.deepEqual(segmentsFor(2), { sequence: '0,1/2,1', segments: ['0:1/2', '1/2:1'] });
  assert.deepEqual(segmentsFor(4), { sequence: '0,1/4,2/4,3/4,1', segments: ['0:1/4', '1/4:2/4', '2/4:3/4', '3/4:1'] });
  // The operator's runner 2 of 4 (pkg/resources/jobs/runner.go, segmentation.NewCommandFragments(2, 4)).
  assert.deepEqual(segmentArgs(2, 4), ['--execution-segment=1/4:2/4', '--execution-segment-sequence=0,1/4,2/4,3/4,1']);
  assert.throws(() => segmentArgs(5, 4), /runner 5 of 4/);
  assert.throws(() => segmentsFor(0), /positive integer/);
});

test('the segments of any N pass the merge coverage check', () => {
  for (const n of [1, 2, 3, 4, 7, 16]) {
    const { sequence, segments } = segmentsFor(n);
    const summaries = segments.map(
      (segment) => ({ script: 'paging', profile: 'smoke', endpoints: {}, segment, segmentSequence: sequence }) as unknown as RunSummary,
    );
    assert.equal(checkSegments(summaries).length, n);
  }
});
