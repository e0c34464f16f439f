// A profile prepared in a folder for Artillery to run elsewhere, where this suite is not: the setup run
// here once (its answer beside the data), the processor bundled with the run's settings (never the
// key), the Artillery script with the shape's phases, limits and plugins. For Artillery's cloud
// (load:cloud): script.json (each container's share of the phases, the data it includes) and
// plan.json (what `load:cloud --report` judges by); for a team's own pipeline (`load:* --export`):
// `<script>.yml`. The load runner prepares the run (load/command/prepare.ts) and scans the folder.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stringify } from 'yaml';
import { ConfigError } from '../../core/config.ts';
import type { LoadScript } from '../../core/formats.ts';
import { bundleProcessor, runSetup, shapePhases, writeShapeFile } from './run.ts';
import { artilleryScript } from './script.ts';
import type { Shape } from './shape.ts';

export interface FolderOptions {
  kind: 'cloud' | 'export';
  dir: string;
  script: LoadScript;
  profile: string;
  baseUrl: string;
  /** The setup's environment (the key in it: it runs here). */
  env: NodeJS.ProcessEnv;
  /** Written into the bundle: the workers' only settings. */
  settings: Record<string, string>;
  requestTimeoutMs: number;
  /** The containers sharing the phases (cloud). */
  runners?: number;
  shape?: Shape;
}

/** Writes the profile's folder; resolves to the files written, the Artillery script's first. */
export async function writeFolder(o: FolderOptions): Promise<string[]> {
  const { dir, script, shape } = o;
  const cloud = o.kind === 'cloud';
  const processor = cloud ? 'processor.mjs' : `${script}.processor.mjs`;
  const records = join(dir, `setup-records-${script}`);
  const setup = await runSetup(script, dir, { ...o.env, LOAD_DATA_DIR: dir, LOAD_SAMPLES_DIR: records });
  rmSync(records, { recursive: true, force: true });
  rmSync(join(dir, `plan-${script}.json`), { force: true });
  if ('reason' in setup) throw new ConfigError(setup.reason);
  await bundleProcessor(join(dir, processor), o.settings);
  const phases = shapePhases(shape, setup.plan);
  const artillery = artilleryScript({
    scenarios: setup.plan.scenarios,
    target: o.baseUrl,
    processor: `./${processor}`,
    requestTimeoutMs: o.requestTimeoutMs,
    runners: o.runners,
    runner: 0,
    phases,
    ensure: shape?.ensure,
    apdex: shape?.apdex,
    plugins: shape?.plugins,
  });
  // A container runs its share of the phases: the processor times the mix by the phases it runs.
  writeShapeFile(join(dir, `shape-${script}.json`), shape, cloud ? artillery.config.phases : phases);
  // The paging profile sends no body: its data is the setup's answer (and the shape's) alone.
  const data = [`${script}.json`, `setup-${script}.json`, `shape-${script}.json`].filter((f) => existsSync(join(dir, f)));
  if (cloud) {
    writeFileSync(join(dir, 'script.json'), JSON.stringify({ ...artillery, config: { ...artillery.config, includeFiles: data } }, null, 2));
    const judged = { ...setup.plan, script, profile: o.profile, target: o.baseUrl, count: o.runners ?? 1, ...(shape?.ensure ? { ensure: shape.ensure } : {}) };
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(judged, null, 2));
    return ['script.json', processor, ...data, 'plan.json'].map((f) => join(dir, f));
  }
  const yml = join(dir, `${script}.yml`);
  const header = [
    `# ${script} load profile (${o.profile}) of console-conformance, exported for ${o.baseUrl}.`,
    `# Run: CONSOLE_API_KEY=... ARTILLERY_DISABLE_TELEMETRY=true npx artillery run ${relative(process.cwd(), yml)}`,
    "# The key comes from the environment only. Every request is one of Artillery's http.* metrics and a console.<endpoint>",
    '# histogram; a failed request fails its virtual user (ensure.maxErrorRate). Data beside this file, read by the processor.',
  ];
  writeFileSync(yml, `${header.join('\n')}\n${stringify({ config: artillery.config, scenarios: artillery.scenarios })}`);
  return [yml, ...[processor, ...data].map((f) => join(dir, f))];
}
