// `load:* --export DIR`: a profile as a self-contained Artillery script, for teams that keep their own
// Artillery pipelines: DIR/<script>.yml (the phases, the target, one scenario whose step is the
// processor's `arrive`), DIR/<script>.processor.mjs (the profile, its checks and validators bundled,
// with this run's settings: never the key), the request bodies and the setup's answer, learnt from the
// target now. `npx artillery run DIR/<script>.yml` runs it with CONSOLE_API_KEY from its environment;
// the processor gives every request to Artillery as its HTTP metrics and the suite's console.* metrics
// and records (as counters: no file is written beside it), and a failed request fails its virtual user.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { stringify } from 'yaml';
import { ConfigError, loadConfig } from '../../core/config.ts';
import { newRunId } from '../../core/random.ts';
import { bundleProcessor, runSetup } from '../artillery/run.ts';
import { artilleryScript, type ArtilleryPhase } from '../artillery/script.ts';
import type { Shape } from '../artillery/shape.ts';
import { writeRunValidators } from '../lib/build-validators.ts';
import { BESIDE_PROCESSOR, PER_PROCESS } from '../lib/env.ts';
import { assertNoKey, loadEnv, type LoadScript, writeBodies } from './run.ts';

export interface ExportOptions {
  scripts: LoadScript[];
  profile: string;
  seed: number;
  dir: string;
  shape?: Shape;
}

/** Writes each profile of `o` into `o.dir`; the files it wrote, or a ConfigError saying why it could not. */
export async function exportProfiles(o: ExportOptions): Promise<string[]> {
  const config = loadConfig();
  // The setup learns from the target (filters, page sizes, whether it takes the suite's overrides): the export is that target's.
  if (!config.baseUrl) throw new ConfigError('--export needs CONSOLE_BASE_URL: the script is prepared for, and runs against, that target');
  const apiKey = config.apiKey ?? '';
  const dir = resolve(o.dir);
  mkdirSync(dir, { recursive: true });
  const runId = newRunId();
  await writeRunValidators(runId);
  // A target keeps what the load writes: the manifest's budget bounds each run of the script.
  writeBodies({ seed: o.seed, runId, manifestPath: config.manifestPath, outDir: dir, budget: true });
  // The bodies of a profile not exported are not its data.
  for (const other of ['paging', 'mutation'] as const) if (!o.scripts.includes(other)) rmSync(join(dir, `${other}.json`), { force: true });
  const written: string[] = [];
  for (const script of o.scripts) {
    const env = loadEnv(o.profile, { baseUrl: config.baseUrl, apiKey }, dir, dir, {
      strict: config.strict,
      requestTimeoutMs: config.requestTimeoutMs,
      external: true,
    });
    const records = join(dir, `setup-records-${script}`);
    const setup = await runSetup(script, dir, { ...env, LOAD_SCRIPT: script, LOAD_DATA_DIR: dir, LOAD_SAMPLES_DIR: records });
    rmSync(records, { recursive: true, force: true });
    rmSync(join(dir, `plan-${script}.json`), { force: true });
    if ('reason' in setup) throw new ConfigError(setup.reason);
    const processor = `${script}.processor.mjs`;
    await bundleProcessor(join(dir, processor), {
      LOAD_SCRIPT: script,
      LOAD_PROFILE: o.profile,
      LOAD_DATA_DIR: BESIDE_PROCESSOR,
      LOAD_CLAIMS_DIR: PER_PROCESS,
      LOAD_ARTILLERY_COUNTERS: '1',
      LOAD_STRICT: config.strict ? '1' : '0',
      LOAD_REQUEST_TIMEOUT: String(config.requestTimeoutMs / 1000),
      CONSOLE_BASE_URL: config.baseUrl,
      ...(config.allowRemoteLoad ? { CONSOLE_ALLOW_REMOTE_LOAD: '1' } : {}),
    });
    const vusers = Object.values(setup.plan.scenarios).reduce((n, s) => n + (s.kind === 'sequence' ? 1 : s.maxVUs), 0);
    const phases = o.shape?.phases?.map((p): ArtilleryPhase => ({ name: p.name ?? `${p.duration} s`, ...p, maxVusers: p.maxVusers ?? vusers }));
    const { config: c, scenarios } = artilleryScript({
      scenarios: setup.plan.scenarios,
      target: config.baseUrl,
      processor: `./${processor}`,
      requestTimeoutMs: config.requestTimeoutMs,
      phases,
      ensure: o.shape?.ensure,
      apdex: o.shape?.apdex,
      plugins: o.shape?.plugins,
    });
    // What the processor takes of a shape (load/artillery/run.ts writes the same): the profile's mix only, the phases' timing.
    if (phases) {
      const byEndpoint = o.shape?.plugins?.['metrics-by-endpoint'] as { metricsNamespace?: string } | undefined;
      writeFileSync(
        join(dir, `shape-${script}.json`),
        JSON.stringify({
          phases,
          apdexMs: o.shape?.apdexMs,
          ...(byEndpoint ? { byEndpoint: { prefix: byEndpoint.metricsNamespace ?? 'plugins.metrics-by-endpoint' } } : {}),
        }),
      );
      written.push(join(dir, `shape-${script}.json`));
    } else rmSync(join(dir, `shape-${script}.json`), { force: true });
    const file = join(dir, `${script}.yml`);
    const header = [
      `# ${script} load profile (${o.profile}) of console-conformance, exported for ${config.baseUrl}.`,
      `# Run: CONSOLE_API_KEY=... ARTILLERY_DISABLE_TELEMETRY=true npx artillery run ${relative(process.cwd(), file)}`,
      "# The key comes from the environment only. Every request is one of Artillery's http.* metrics and a console.<endpoint>",
      '# histogram; a failed request fails its virtual user (ensure.maxErrorRate). Data beside this file, read by the processor.',
    ];
    writeFileSync(file, `${header.join('\n')}\n${stringify({ config: c, scenarios })}`);
    written.unshift(file);
    written.push(join(dir, processor), join(dir, `${script}.json`), join(dir, `setup-${script}.json`));
  }
  try {
    assertNoKey(dir, apiKey);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return written;
}
