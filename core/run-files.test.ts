// The files a run writes are parsed only in core/formats.ts: a reader elsewhere would drift from the
// writer. Every other JSON file read from disk is named here with why it is not a run file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './config.ts';
import { repositoryFiles } from './repository-files.ts';

const NOT_RUN_FILES: Record<string, string> = {
  'core/formats.ts': 'the one reader of the run files',
  'core/config.ts': 'the target manifest',
  'contracts/index.ts': 'the generated schemas and their index',
  'reference/store/seed.ts': "the reference manifest, the seed's ids",
  'core/package.ts': "package.json's version and build-info.json's commit",
  'core/yaml.ts': 'the parsed copy of a project YAML file (contracts/clauses.yaml, openapi.yaml), kept by the text hash',
  'report/inputs.ts': "timeseries.json, the report's own file",
  'load/mutation.ts': 'the request bodies fixtures/generate.ts wrote for the run',
  'fixtures/generate.ts': "a paired run's plan of both sides (--pair), written for it by load/command/paired.ts",
  'load/artillery/processor.ts': "the setup's answer, handed to every worker",
  'load/artillery/run.ts': "the profile's plan and Artillery's package.json (its version)",
  'load/cloud/cli.ts': "a prepared cloud run's plan and Artillery's JSON report of it",
  'load/command/plan.ts': "a load plan handed to the runner's command (--plan FILE, as verify does), checked as it is read",
  'harness/reliability/cuts-lib.ts': 'the reference target manifest, copied with one more experiment for the cut runs',
  'harness/bench/generator.ts': "Artillery's own JSON report of the run of its own HTTP engine",
};
/** The TypeScript modules of the repository but its tests. */
const sources = () => repositoryFiles().filter((f) => /\.ts$/.test(f) && !/\.(test|spec)\.ts$/.test(f));

test('no file but core/formats.ts parses a JSON file it reads, except those named with their reason', () => {
  const readers = sources().filter((f) => /JSON\.parse\(readFileSync/.test(readFileSync(join(ROOT, f), 'utf8')));
  assert.deepEqual(readers.sort(), Object.keys(NOT_RUN_FILES).sort());
});
