// The Kubernetes objects of a k6-operator run of a load profile (grafana/k6-operator, TestRun
// k6.io/v1alpha1): a PersistentVolumeClaim that holds the k6 archive and the reports the runner pods
// write, a helper Pod that mounts the claim (to copy the archive in and the reports out: a finished
// runner pod cannot be copied from), and the TestRun. The archive travels on the claim, not in a
// ConfigMap: a ConfigMap holds at most 1 MiB, and the mutation profile's archive (its 1000-override
// bodies) is larger. docs/load.md, "Beyond one machine", walks through applying them.
//
// The key reaches the runners only from a Kubernetes Secret (env valueFrom secretKeyRef): it is not
// in the archive, the TestRun's arguments or this YAML. Each runner writes into a folder of the claim
// named after its pod (a volume mount's subPathExpr), so that the runners of one TestRun, and of the
// TestRuns before it, never write over each other; its summary.json and its k6 CSV output
// (requests.csv.gz, from which the merge reads the request durations) are what `baseline:compare
// --merge` takes.
import { stringify } from 'yaml';

export interface TestRunOptions {
  /** The TestRun's name; its runner pods are `<name>-<i>-<suffix>`. */
  name: string;
  /** The k6 archive's file name on the claim. */
  archive: string;
  parallelism: number;
  /** The target the runners load (CONSOLE_BASE_URL). */
  baseUrl: string;
  /** Whether the target is not loopback: the runners then get CONSOLE_ALLOW_REMOTE_LOAD=1, which the k6 scripts require. */
  remote: boolean;
  /** The Secret and its key holding the SERVICE-API-KEY value. */
  secret: { name: string; key: string };
  claim: string;
  /** The runner image: the k6 the archive was made with. */
  image: string;
}

/** The uid and gid of the k6 image's user (grafana/k6 Dockerfile: `adduser -u 12345`): the claim's files are writable by it. */
export const K6_USER = 12345;
/** Where the claim is mounted in a runner; each runner sees its own folder there. */
export const REPORTS_MOUNT = '/reports';

export function testRun(o: TestRunOptions): Record<string, unknown> {
  return {
    apiVersion: 'k6.io/v1alpha1',
    kind: 'TestRun',
    metadata: { name: o.name, labels: { 'app.kubernetes.io/part-of': 'console-conformance' } },
    spec: {
      parallelism: o.parallelism,
      // The operator mounts the claim at /test in every pod and runs the archive from there.
      script: { volumeClaim: { name: o.claim, file: o.archive } },
      // The operator passes --quiet, the segment, --paused and --address itself; what the profile needs is in the archive.
      arguments: '--no-color',
      // No `cleanup: post`: the operator would delete the TestRun on "error" as on "finished", and its stage says which.
      runner: {
        image: o.image,
        env: [
          { name: 'CONSOLE_BASE_URL', value: o.baseUrl },
          ...(o.remote ? [{ name: 'CONSOLE_ALLOW_REMOTE_LOAD', value: '1' }] : []),
          // From the Secret only: never a value here, in the archive or in the arguments.
          { name: 'CONSOLE_API_KEY', valueFrom: { secretKeyRef: { name: o.secret.name, key: o.secret.key } } },
          { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'LOAD_REPORT_DIR', value: REPORTS_MOUNT },
          // One row per request: the merge reads the durations from it (load/compare/runner-files.ts).
          { name: 'K6_OUT', value: `csv=${REPORTS_MOUNT}/requests.csv.gz` },
          { name: 'K6_WEB_DASHBOARD', value: 'true' },
          { name: 'K6_WEB_DASHBOARD_PORT', value: '-1' },
          { name: 'K6_WEB_DASHBOARD_EXPORT', value: `${REPORTS_MOUNT}/dashboard.html` },
          { name: 'K6_NO_USAGE_REPORT', value: 'true' },
        ],
        securityContext: { fsGroup: K6_USER },
        volumes: [{ name: 'reports', persistentVolumeClaim: { claimName: o.claim } }],
        volumeMounts: [{ name: 'reports', mountPath: REPORTS_MOUNT, subPathExpr: '$(POD_NAME)' }],
      },
    },
  };
}

/** The claim the runners write to: ReadWriteMany, since runners on several nodes write at once. */
export function reportsClaim(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, labels: { 'app.kubernetes.io/part-of': 'console-conformance' } },
    spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '1Gi' } } },
  };
}

/** A Pod that mounts the claim and waits: `kubectl cp` puts the archive on the claim, `kubectl exec ... tar` takes the runners' folders out. */
export function helperPod(name: string, claim: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { 'app.kubernetes.io/part-of': 'console-conformance' } },
    spec: {
      // The runners' user, so that what it writes they can read, and the reverse.
      securityContext: { fsGroup: K6_USER, runAsUser: K6_USER, runAsNonRoot: true },
      containers: [{ name: 'helper', image: 'busybox:1.36', command: ['sleep', '86400'], volumeMounts: [{ name: 'reports', mountPath: REPORTS_MOUNT }] }],
      volumes: [{ name: 'reports', persistentVolumeClaim: { claimName: claim } }],
      restartPolicy: 'Never',
    },
  };
}

/** Several objects as one YAML file of documents. */
export function yamlDocuments(objects: Record<string, unknown>[]): string {
  return objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
}
