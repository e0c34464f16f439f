// The worker's metric: one metric per Playwright worker, for the tests that need a metric to update
// (update checks, the key checks of update, negative data, the envelope). There is no delete (spec 4),
// so each metric a run creates stays on the target: sharing one per worker keeps a run to a handful.
// Tests of one worker run one at a time, so the metric has one writer at a time (owners.ts). Its state
// is whatever the last user left: a test that compares values first sets them with an update (4.7
// lets an update set every field such a test compares).
import { test } from '@playwright/test';
import { expect, type T } from './suite-test.ts';
import { metricName, ok2xx } from './checks.ts';
import { checkAs } from './blame.ts';
import type { Reply } from './evidence.ts';
import { NAME_LENGTH_ORDINARY, WAREHOUSE_METRIC_TYPE } from './boundaries.ts';

/** Its type: the one warehouseNative (4.8) describes, which the update checks send. */
export const WORKER_METRIC_TYPE = WAREHOUSE_METRIC_TYPE;

export interface WorkerMetric {
  id: string;
  name: string;
  /** The create that made it. */
  creation: Reply;
  /** The run id of the test that created it. */
  creator: string;
}

let made: WorkerMetric | undefined;

/**
 * The worker's metric, created by the first test of the worker that asks (with its own `t`, so that the
 * create is that test's evidence). A create that fails fails the asking test; the next test asks again.
 */
export async function workerMetric(t: T): Promise<WorkerMetric> {
  if (made) return made;
  const name = metricName(t.manifest.metricPrefix, t.runId, NAME_LENGTH_ORDINARY, '_worker');
  const creation = await t.call('POST', '/console/v1/metrics', { data: { name, type: WORKER_METRIC_TYPE } });
  // A create valid in every part, refused: the create operation's failure, whichever test asked first.
  checkAs('metrics.create.path', () =>
    expect(ok2xx(creation), `the worker's metric (a metric to update) is created: ${creation.status} ${JSON.stringify(creation.body)?.slice(0, 200)}`).toBe(
      true,
    ),
  );
  const id = typeof creation.body?.data?.id === 'string' ? creation.body.data.id : `${name}::${WORKER_METRIC_TYPE}`;
  made = { id, name, creation, creator: t.runId };
  return made;
}

/**
 * The create of the worker's metric, for a test that judges what a create answers without making a
 * metric of its own. When another test of the worker made it, its exchange is attached to this test
 * too, so that a failure here shows the create it is about.
 */
export async function workerMetricCreation(t: T): Promise<Reply> {
  const m = await workerMetric(t);
  if (m.creator !== t.runId) await test.info().attach('exchange', { body: JSON.stringify(m.creation.exchange), contentType: 'application/json' });
  return m.creation;
}
