// `tsx load/artillery/setup.ts <paging|mutation>`: a profile's setup, once, before Artillery starts
// its workers (Artillery's `before` would run it in each worker). Run as a process of its own with
// the profile's environment (load/artillery/run.ts). Writes into LOAD_DATA_DIR the setup's answer
// (setup-<script>.json, read by every worker) and the profile's plan (plan-<script>.json: scenarios
// and thresholds), and what setup recorded into LOAD_SAMPLES_DIR. A target that cannot be tested
// stops here: one line on stderr, exit 3.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AbortRun, takeRecords } from '../lib/runtime.ts';
import { DATA_DIR, SAMPLES_DIR } from '../lib/env.ts';
import type { Profile } from '../lib/profile.ts';

const script = process.argv[2];
const dataDir = DATA_DIR;
const samplesDir = SAMPLES_DIR;

async function main(): Promise<number> {
  const profile = (
    script === 'paging' ? (await import('../paging.ts')).paging : script === 'mutation' ? (await import('../mutation.ts')).mutation : undefined
  ) as Profile | undefined;
  if (!profile) {
    console.error(`load: setup: the profile must be paging or mutation, got ${JSON.stringify(script)}`);
    return 3;
  }
  writeFileSync(
    join(dataDir, `plan-${script}.json`),
    JSON.stringify({ scenarios: profile.scenarios, thresholds: profile.thresholds, endpoints: profile.endpoints }),
  );
  try {
    const answer = await profile.setup();
    writeFileSync(join(dataDir, `setup-${script}.json`), JSON.stringify(answer ?? null));
    return 0;
  } catch (err) {
    const reason = (err as Error).message.split('\n')[0];
    console.error(err instanceof AbortRun ? `load: ${script}: ${reason}` : `load: ${script}: setup failed: ${reason}`);
    return 3;
  } finally {
    mkdirSync(samplesDir, { recursive: true });
    appendFileSync(join(samplesDir, 'setup.ndjson'), `${JSON.stringify(takeRecords())}\n`);
  }
}

process.exitCode = await main();
