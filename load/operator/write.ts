// The work of `npm run load:testrun`: a k6 archive of one load profile and the Kubernetes YAML that
// runs it on the k6 operator with N runners (load/operator/testrun.ts), checked against the
// operator's TestRun fields before it is written, and the commands that take it from here to the
// merged, compared and recorded run (docs/load.md, "Beyond one machine").
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type Config, ConfigError, isLoopback, ROOT } from '../../core/config.ts';
import { newRunId } from '../../core/random.ts';
import { buildArchive, k6Version } from './archive.ts';
import { helperPod, REPORTS_MOUNT, reportsClaim, testRun, yamlDocuments } from './testrun.ts';
import { testRunProblems } from './testrun-fields.ts';

export interface TestRunArgs {
  script: 'paging' | 'mutation';
  profile: string;
  parallelism: number;
  seed: number;
  /** Where the archive and the YAML go; default <reports>/testrun/<name>/. */
  out?: string;
  secret: string;
  claim: string;
  /** The runner image; default grafana/k6 at the version of the k6 that made the archive. */
  image?: string;
  strict?: boolean;
  /** The run id inside the TestRun's name and the names of created metrics; default a new one. */
  runId?: string;
}

export interface WrittenTestRun {
  name: string;
  dir: string;
  archive: string;
  testrun: string;
  /** The claim and its helper Pod. */
  claim: string;
  /** The commands from here: the Secret, the claim, the archive onto it, apply, copy out, merge. */
  steps: string[];
}

/** The k6 scripts/install-k6 resolves (K6_BIN, else .tools/bin/k6); missing is exit 3 with its reason. */
function findK6(): string {
  const r = spawnSync('bash', [join(ROOT, 'scripts/install-k6'), '--which'], { encoding: 'utf8' });
  if (r.status !== 0) throw new ConfigError((r.stderr || 'k6 is not installed: run npm run k6:install').trim().replace(/^install-k6: /, ''));
  return r.stdout.trim();
}

export async function writeTestRun(a: TestRunArgs, config: Config): Promise<WrittenTestRun> {
  if (!config.baseUrl) throw new ConfigError('CONSOLE_BASE_URL must name the target the runners load: a TestRun starts no reference server');
  const remote = !isLoopback(config.baseUrl);
  if (remote && !config.allowRemoteLoad)
    throw new ConfigError(`refusing to write a load of ${new URL(config.baseUrl).host}: it is not loopback; set CONSOLE_ALLOW_REMOTE_LOAD=1 to allow it`);
  const runId = a.runId ?? newRunId();
  if (!/^[a-z0-9]{1,24}$/.test(runId)) throw new ConfigError(`the run id must be 1 to 24 lower-case letters or digits, got ${runId}`);
  const name = `console-${a.script}-${runId}`;
  const dir = a.out ?? join(config.reportsDir, 'testrun', name);
  mkdirSync(dir, { recursive: true });
  const k6 = findK6();
  // Named after the run: the claim keeps the archives of the runs before it.
  const archiveName = `${name}.tar`;
  const archive = join(dir, archiveName);
  await buildArchive({
    k6,
    script: a.script,
    profile: a.profile,
    out: archive,
    runId,
    seed: a.seed,
    manifestPath: config.manifestPath,
    strict: a.strict ?? config.strict,
    requestTimeoutSeconds: config.requestTimeoutMs / 1000,
    key: config.apiKey,
  });
  const version = k6Version(k6);
  const run = testRun({
    name,
    archive: archiveName,
    parallelism: a.parallelism,
    baseUrl: config.baseUrl,
    remote,
    secret: { name: a.secret, key: 'CONSOLE_API_KEY' },
    claim: a.claim,
    image: a.image ?? `grafana/k6:${version ?? 'latest'}`,
  });
  const problems = testRunProblems(run);
  if (problems.length) throw new ConfigError(`the TestRun is not what the operator's CRD declares: ${problems.join('; ')}`);
  const testrun = join(dir, 'testrun.yaml');
  const claim = join(dir, 'claim.yaml');
  const helper = `${a.claim}-helper`;
  writeFileSync(claim, yamlDocuments([reportsClaim(a.claim), helperPod(helper, a.claim)]));
  writeFileSync(testrun, yamlDocuments([run]));
  const rel = (p: string) => (relative(ROOT, p).startsWith('..') ? p : relative(ROOT, p));
  // Runner pods are <name>-<runner>-<suffix>; the initializer's folder (<name>-initializer-...) holds no report.
  const runners = `${name}-[0-9]*`;
  const steps = [
    `kubectl create secret generic ${a.secret} --from-literal=CONSOLE_API_KEY="$CONSOLE_API_KEY"   # once; the key lives only there`,
    `kubectl apply -f ${rel(claim)} && kubectl wait pod/${helper} --for=condition=Ready --timeout=5m`,
    `kubectl cp ${rel(archive)} ${helper}:${REPORTS_MOUNT}/${archiveName}`,
    `kubectl apply -f ${rel(testrun)}`,
    `kubectl wait testrun/${name} --for=jsonpath='{.status.stage}'=finished --timeout=30m   # "error" instead: kubectl describe testrun/${name}`,
    `mkdir -p runs && kubectl exec ${helper} -- sh -c 'cd ${REPORTS_MOUNT} && tar cf - ${runners}' | tar xf - -C runs`,
    `npm run baseline:compare -- --merge runs/${runners} --history reports/history.sqlite`,
    `kubectl delete testrun/${name}   # the claim keeps the archive and the runners' folders; kubectl delete -f ${rel(claim)} removes them`,
  ];
  return { name, dir, archive, testrun, claim, steps };
}
