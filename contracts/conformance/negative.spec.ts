// negative_data_rejection: generated invalid bodies for the metric writes get a 4xx, never a 2xx or a
// 5xx (inferred: the outcome of bad input is not shown, spec 7). The bodies come from the contract
// (support/negative.ts). The writes to a gate, an experiment and a trigger get theirs in the file that
// owns the resource (support/owners.ts): gates.spec.ts, overrides.spec.ts, triggers.spec.ts.
import { checks, expect, test } from '../support/suite-test.ts';
import { expectClientError } from '../support/checks.ts';
import { expectBrokenBodiesRejected } from '../support/negative.ts';
import { workerMetric } from '../support/worker-metric.ts';
import { METRIC_TYPE } from '../support/boundaries.ts';

test(
  'negative data: create and update metric reject bodies that break their schema with a 4xx [inferred]',
  checks('inferred', 'errors.badInput.4xx', 'writes.rejectedPersistNothing'),
  async ({ t }) => {
    const metric = `${t.manifest.metricPrefix}${t.runId}_neg`;
    // Update bodies go to a metric that exists, so that a rejection is about the body, not the id.
    const existing = (await workerMetric(t)).id;
    const sent = await t.clause('errors.badInput.4xx', async () => {
      const created = await expectBrokenBodiesRejected(t, 'createMetric', 'POST', '/console/v1/metrics', { name: metric, type: METRIC_TYPE, dryRun: true });
      const updated = await expectBrokenBodiesRejected(t, 'updateMetric', 'POST', `/console/v1/metrics/${encodeURIComponent(existing)}`, {
        description: 'x',
        dryRun: true,
      });
      return created + updated;
    });
    // A rejected create left nothing: the metric cannot be updated.
    const probe = await t.call('POST', `/console/v1/metrics/${metric}::${METRIC_TYPE}`, { data: { description: 'probe' } });
    await t.clause('writes.rejectedPersistNothing', async () => expectClientError(probe, 'update of a metric whose creates were all rejected'));
    expect(sent, 'invalid bodies sent').toBeGreaterThan(60);
  },
);
