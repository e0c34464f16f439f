// The TestRun the suite writes has the shape the k6 operator's CRD declares (a field Kubernetes does
// not know it drops without a word), and the key reaches the runners from a Secret only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { helperPod, reportsClaim, testRun, type TestRunOptions, yamlDocuments } from './testrun.ts';
import { testRunProblems } from './testrun-fields.ts';

const options: TestRunOptions = {
  name: 'console-paging-mx1abc',
  archive: 'console-paging-mx1abc.tar',
  parallelism: 4,
  baseUrl: 'https://staging.example.com',
  remote: true,
  secret: { name: 'console-api-key', key: 'CONSOLE_API_KEY' },
  claim: 'console-load-reports',
  image: 'grafana/k6:1.8.1',
};

type Env = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } } };
const envOf = (run: Record<string, unknown>) => (run as { spec: { runner: { env: Env[] } } }).spec.runner.env;

test('the TestRun has only fields of the operator CRD, with their types', () => {
  const run = testRun(options);
  assert.deepEqual(testRunProblems(run), []);
  const spec = (run as { spec: Record<string, unknown> }).spec;
  assert.equal(spec.parallelism, 4);
  assert.deepEqual(spec.script, { volumeClaim: { name: 'console-load-reports', file: 'console-paging-mx1abc.tar' } });
  // Each runner writes into its own folder of the claim: the mount's subPathExpr names it after the pod.
  assert.deepEqual((spec.runner as { volumeMounts: unknown[] }).volumeMounts, [{ name: 'reports', mountPath: '/reports', subPathExpr: '$(POD_NAME)' }]);
  assert.deepEqual(
    envOf(run).find((e) => e.name === 'POD_NAME'),
    { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
  );
});

test('the field check finds what Kubernetes would drop or refuse', () => {
  const run = testRun(options) as { spec: Record<string, unknown> & { runner: Record<string, unknown> } };
  const misspelt = { ...run, spec: { ...run.spec, runner: { ...run.spec.runner, volumeMount: [] } } };
  assert.deepEqual(testRunProblems(misspelt), ['/spec/runner: volumeMount is not a field of the TestRun CRD']);
  const secretRef = structuredClone(run) as typeof run;
  (secretRef.spec.runner.env as Env[])[2] = { name: 'CONSOLE_API_KEY', valueFrom: { secretRef: { name: 'x' } } } as unknown as Env;
  assert.deepEqual(testRunProblems(secretRef), ['/spec/runner/env/2/valueFrom: secretRef is not a field of the TestRun CRD']);
  const { script: _none, ...noScript } = run.spec;
  assert.deepEqual(testRunProblems({ ...run, spec: { ...noScript, parallelism: '4' } }), [
    "/spec must have required property 'script'",
    '/spec/parallelism must be integer',
  ]);
  assert.match(testRunProblems({ ...run, metadata: { name: 'Console_Paging' } }).join(), /must match pattern/);
});

test("the operator's own sample TestRuns pass the same check: it holds the CRD, not this suite's habits", () => {
  // config/samples/k6_v1alpha1_testrun_with_volumeClaim.yaml, k6_v1alpha1_testrun_with_args.yaml and e2e/testrun-archive of grafana/k6-operator.
  const samples = [
    {
      apiVersion: 'k6.io/v1alpha1',
      kind: 'TestRun',
      metadata: { name: 'k6-sample', namespace: 'load-test' },
      spec: { parallelism: 4, script: { volumeClaim: { name: 'stress-test-volumeClaim', file: 'test.js' } } },
    },
    {
      apiVersion: 'k6.io/v1alpha1',
      kind: 'TestRun',
      metadata: { name: 'k6-sample-with-args' },
      spec: {
        parallelism: 2,
        script: { configMap: { name: 'k6-test', file: 'test.js' } },
        args: ['--tag', 'note=nightly run of "checkout" flow', '-e', 'PRICE_LABEL=$$100 and up', '-e', 'BASE_URL=$(BASE_URL)'],
        runner: { env: [{ name: 'BASE_URL', value: 'https://test.k6.io' }] },
      },
    },
    {
      apiVersion: 'k6.io/v1alpha1',
      kind: 'TestRun',
      metadata: { name: 'k6-sample' },
      spec: { parallelism: 1, script: { configMap: { name: 'test', file: 'archive.tar' } } },
    },
  ];
  for (const s of samples) assert.deepEqual(testRunProblems(s), [], s.metadata.name);
});

test('the key comes from the Secret only; a remote target carries CONSOLE_ALLOW_REMOTE_LOAD, a loopback one does not', () => {
  const env = envOf(testRun(options));
  const key = env.filter((e) => e.name === 'CONSOLE_API_KEY');
  assert.deepEqual(key, [{ name: 'CONSOLE_API_KEY', valueFrom: { secretKeyRef: { name: 'console-api-key', key: 'CONSOLE_API_KEY' } } }]);
  assert.deepEqual(
    env.find((e) => e.name === 'CONSOLE_ALLOW_REMOTE_LOAD'),
    { name: 'CONSOLE_ALLOW_REMOTE_LOAD', value: '1' },
  );
  assert.equal(
    envOf(testRun({ ...options, baseUrl: 'http://127.0.0.1:8080', remote: false })).some((e) => e.name === 'CONSOLE_ALLOW_REMOTE_LOAD'),
    false,
  );
  // The arguments carry nothing of the target or the key.
  assert.equal((testRun(options) as { spec: { arguments: string } }).spec.arguments, '--no-color');
});

test('the YAML file is the objects, document by document', () => {
  const objects = [reportsClaim('console-load-reports'), helperPod('console-load-reports-helper', 'console-load-reports'), testRun(options)];
  const docs = parseAllDocuments(yamlDocuments(objects)).map((d) => d.toJS());
  assert.deepEqual(docs, objects);
  assert.deepEqual(
    docs.map((d) => d.kind),
    ['PersistentVolumeClaim', 'Pod', 'TestRun'],
  );
});
