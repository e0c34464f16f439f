// A profile's own shape is its shape file (load/shapes/<script>.<profile>.yml), and `--config NAME`
// runs that file as it is: the phases the profile makes of the file's first phase (its rate, less the
// ruler's, shared among its jobs; the ruler kept at its own rate; stress ramping x1 to x8) must be
// the file's phases, or the two would measure different loads under one name.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { ROOT } from '../../core/config.ts';
import { LOAD_PROFILES, LOAD_SCRIPTS } from '../../core/formats.ts';
import { phasesOf } from '../artillery/script.ts';
import { ownShape, type ProfileScenario, RULER } from './profiles.ts';

type Phase = { duration: number; arrivalRate: number; rampTo?: number; maxVusers?: number };
const plain = (p: Phase) => ({ duration: p.duration, arrivalRate: p.arrivalRate, rampTo: p.rampTo ?? p.arrivalRate, maxVusers: p.maxVusers });

test("each profile's own phases are its shape file's", () => {
  for (const script of LOAD_SCRIPTS)
    for (const profile of LOAD_PROFILES) {
      const own = ownShape(script, profile);
      const jobs = { rate: own.rate - RULER.rate, maxVUs: own.maxVusers - RULER.maxVUs - 1 };
      const job: ProfileScenario =
        profile === 'stress'
          ? { kind: 'ramp', exec: 'job', ...jobs, stepSeconds: Math.max(10, Math.round(own.seconds / 4)) }
          : { kind: 'constant', exec: 'job', ...jobs, seconds: own.seconds };
      const made = phasesOf({
        job,
        walk: { kind: 'sequence', exec: 'walk', iterations: 1 },
        ruler: { kind: 'constant', exec: 'r', ...RULER, seconds: own.seconds },
      });
      const file = parse(readFileSync(join(ROOT, 'load/shapes', `${script}.${profile}.yml`), 'utf8')) as { config: { phases: Phase[] } };
      assert.deepEqual(made.map(plain), file.config.phases.map(plain), `${script}.${profile}.yml`);
    }
});
