// The fields of a k6-operator TestRun (k6.io/v1alpha1) as the operator's CRD declares them
// (grafana/k6-operator config/crd/bases/k6.io_testruns.yaml at e2c9571, Helm chart 4.6.0; docs/crd-generated.md),
// as a JSON Schema for the objects the suite writes (load/operator/testrun.ts). Kubernetes drops a
// field its CRD does not declare without a word, so a misspelt one (`volumeMount`, `secretRef`)
// would leave the runners without their reports folder or their key: here every object the suite
// fills lists the CRD's properties and allows no other. Only the names are transcribed for the
// properties the suite does not use; the CRD has their shapes.
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';

const any = {};
const str = { type: 'string' };
/** An object with exactly these properties (the CRD's), `required` among them. */
const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', additionalProperties: false, properties, required });
const names = (list: string[], used: Record<string, unknown> = {}) => Object.fromEntries(list.map((n) => [n, used[n] ?? any]));

// core/v1 EnvVar, as the CRD embeds it for runner.env.
const keySelector = object({ key: str, name: str, optional: { type: 'boolean' } }, ['key']);
const envVar = object(
  {
    name: str,
    value: str,
    valueFrom: object({
      configMapKeyRef: keySelector,
      fieldRef: object({ apiVersion: str, fieldPath: str }, ['fieldPath']),
      fileKeyRef: any,
      resourceFieldRef: any,
      secretKeyRef: keySelector,
    }),
  },
  ['name'],
);

const volumeMount = object(
  names(['mountPath', 'mountPropagation', 'name', 'readOnly', 'recursiveReadOnly', 'subPath', 'subPathExpr'], {
    mountPath: str,
    name: str,
    readOnly: { type: 'boolean' },
    subPathExpr: str,
  }),
  ['mountPath', 'name'],
);

// core/v1 Volume: the CRD lists every volume source; the suite uses persistentVolumeClaim.
const VOLUME_SOURCES = [
  'awsElasticBlockStore',
  'azureDisk',
  'azureFile',
  'cephfs',
  'cinder',
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'fc',
  'flexVolume',
  'flocker',
  'gcePersistentDisk',
  'gitRepo',
  'glusterfs',
  'hostPath',
  'image',
  'iscsi',
  'name',
  'nfs',
  'persistentVolumeClaim',
  'photonPersistentDisk',
  'portworxVolume',
  'projected',
  'quobyte',
  'rbd',
  'scaleIO',
  'secret',
  'storageos',
  'vsphereVolume',
];
const volume = object(names(VOLUME_SOURCES, { name: str, persistentVolumeClaim: object({ claimName: str, readOnly: { type: 'boolean' } }, ['claimName']) }), [
  'name',
]);

const podSecurityContext = object(
  names(
    [
      'appArmorProfile',
      'fsGroup',
      'fsGroupChangePolicy',
      'runAsGroup',
      'runAsNonRoot',
      'runAsUser',
      'seLinuxChangePolicy',
      'seLinuxOptions',
      'seccompProfile',
      'supplementalGroups',
      'supplementalGroupsPolicy',
      'sysctls',
      'windowsOptions',
    ],
    { fsGroup: { type: 'integer' }, runAsUser: { type: 'integer' }, runAsNonRoot: { type: 'boolean' } },
  ),
);

// TestRunSpec.runner (api/v1alpha1 Pod).
const RUNNER_FIELDS = [
  'affinity',
  'automountServiceAccountToken',
  'containerSecurityContext',
  'disabled',
  'env',
  'envFrom',
  'image',
  'imagePullPolicy',
  'imagePullSecrets',
  'initContainers',
  'livenessProbe',
  'metadata',
  'nodeSelector',
  'priorityClassName',
  'readinessProbe',
  'resources',
  'schedulerName',
  'securityContext',
  'serviceAccountName',
  'tolerations',
  'topologySpreadConstraints',
  'volumeMounts',
  'volumes',
];
const runner = object(
  names(RUNNER_FIELDS, {
    env: { type: 'array', items: envVar },
    image: str,
    securityContext: podSecurityContext,
    volumeMounts: { type: 'array', items: volumeMount },
    volumes: { type: 'array', items: volume },
  }),
);

const SPEC_FIELDS = [
  'args',
  'arguments',
  'cleanup',
  'initializer',
  'parallelism',
  'paused',
  'ports',
  'quiet',
  'runner',
  'script',
  'scuttle',
  'separate',
  'starter',
  'testRunId',
  'token',
];
const spec = object(
  names(SPEC_FIELDS, {
    args: { type: 'array', items: str },
    arguments: str,
    cleanup: { enum: ['post'] },
    parallelism: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 },
    paused: str,
    quiet: str,
    runner,
    script: object({
      configMap: object({ file: str, name: str }, ['name']),
      localFile: str,
      volumeClaim: object({ file: str, name: str, readOnly: { type: 'boolean' } }, ['name']),
    }),
    separate: { type: 'boolean' },
  }),
  ['parallelism', 'script'],
);

export const TESTRUN_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    apiVersion: { const: 'k6.io/v1alpha1' },
    kind: { const: 'TestRun' },
    // metadata.name becomes the runner Jobs' names (`<name>-<i>`), which Kubernetes holds to DNS labels.
    metadata: {
      type: 'object',
      properties: { name: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 52 }, labels: { type: 'object' } },
      required: ['name'],
    },
    spec,
    status: any,
  },
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
};

const validate = new Ajv2020({ allErrors: true, strict: false }).compile(TESTRUN_SCHEMA);

/** What in `doc` is not a TestRun as the operator's CRD declares it, one line each; empty when it is one. */
export function testRunProblems(doc: unknown): string[] {
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e: ErrorObject) =>
    e.keyword === 'additionalProperties'
      ? `${e.instancePath || '/'}: ${(e.params as { additionalProperty: string }).additionalProperty} is not a field of the TestRun CRD`
      : `${e.instancePath || '/'} ${e.message}`,
  );
}
