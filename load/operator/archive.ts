// The k6 archive a TestRun's runners run: the script, its modules, the response validators and the
// request bodies written for this run (k6 archive bundles what the script imports and open()s), with
// the settings of the profile as `-e` values, which the archive keeps. Never the key: k6 archive
// keeps only the `-e` values (not the environment, k6 docs "k6 archive"), it is run with an
// environment that has no key at all, and the archive is searched for the key before it is kept.
import { spawnSync } from 'node:child_process';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ROOT } from '../../core/config.ts';
import { keyForms } from '../../core/keys.ts';
import { buildValidators } from '../lib/build-validators.ts';

export interface ArchiveOptions {
  k6: string;
  script: 'paging' | 'mutation';
  profile: string;
  /** The archive to write. */
  out: string;
  /** The run id inside the names of the metrics the mutation profile creates. */
  runId: string;
  seed: number;
  /** The target manifest the request bodies are written for. */
  manifestPath: string;
  strict: boolean;
  requestTimeoutSeconds: number;
  /** The key of this machine's environment, if any: the archive must not hold it. */
  key?: string;
}

/** The `-e` values the archive keeps: how the profile runs, nothing about the target. */
export function archiveEnv(o: Pick<ArchiveOptions, 'profile' | 'runId' | 'strict' | 'requestTimeoutSeconds'>): Record<string, string> {
  return {
    LOAD_PROFILE: o.profile,
    // Relative to the script, as open() reads it; the archive carries the files.
    LOAD_DATA_DIR: `./data/run-${o.runId}`,
    LOAD_STRICT: o.strict ? '1' : '0',
    LOAD_REQUEST_TIMEOUT: String(o.requestTimeoutSeconds),
    // A target's trigger phases are finite and nothing resets them: at most 2 skips per trigger and run (load/mutation.ts).
    LOAD_TRIGGER_SKIPS: '2',
  };
}

/** Writes the archive; throws a ConfigError (one line) when a step fails or the key is in it. */
export async function buildArchive(o: ArchiveOptions): Promise<void> {
  const dataDir = join(ROOT, 'load/data', `run-${o.runId}`);
  // A clean environment: no CONSOLE_API_KEY, nothing of the target.
  const clean = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', K6_NO_USAGE_REPORT: 'true' };
  try {
    const tmp = await buildValidators(join(ROOT, 'load/data', `validators.${o.runId}.tmp.js`));
    renameSync(tmp, join(ROOT, 'load/data/validators.js'));
    // fixtures/ is its own folder: its command writes the bodies, as docs/load.md has users run it.
    const gen = spawnSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
        join(ROOT, 'fixtures/generate.ts'),
        '--manifest',
        o.manifestPath,
        '--out',
        dataDir,
        '--run-id',
        o.runId,
        '--seed',
        String(o.seed),
        // A TestRun runs against a target, whose trigger phases, metrics and rules stay: the manifest's budget bounds it.
        '--budget',
      ],
      { cwd: ROOT, env: clean, encoding: 'utf8' },
    );
    if (gen.status !== 0) throw new ConfigError(`writing the request bodies: ${(gen.stderr || gen.stdout).trim().split('\n')[0]}`);
    const env = Object.entries(archiveEnv(o)).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const k6 = spawnSync(o.k6, ['archive', '--quiet', '--no-color', '-O', o.out, ...env, `${o.script}.ts`], {
      cwd: join(ROOT, 'load'),
      env: clean,
      encoding: 'utf8',
    });
    if (k6.status !== 0) throw new ConfigError(`k6 archive: ${(k6.stderr || k6.stdout).trim().split('\n').at(-1) ?? `exit ${k6.status}`}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (o.key) {
    const bytes = readFileSync(o.out, 'latin1');
    if (keyForms(o.key).some((form) => bytes.includes(form))) {
      rmSync(o.out, { force: true });
      throw new ConfigError(`${o.out} held the API key: removed`);
    }
  }
}

/** The k6 version the archive was made with (`k6 version`: `k6 v1.8.1 (...)`), for the runner image; undefined when k6 does not say. */
export function k6Version(k6: string): string | undefined {
  const r = spawnSync(k6, ['version'], { encoding: 'utf8' });
  return /\bv(\d+\.\d+\.\d+)\b/.exec(r.stdout ?? '')?.[1];
}
