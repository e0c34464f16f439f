// The calibration request, shared by every script: the ruler the baseline compare divides by
// (docs/load.md, "Calibration"). It must measure the machine, the network and the HTTP stack, and
// nothing a profile measures: a request to a path under /console/v1/ that no operation has, without
// the key. Every server refuses it without work (the reference and most servers with 401 from the
// key check that runs before routing; others with 404 or 403: any 4xx, of any body, will do), and no
// route the load measures is on its way, so a slowdown in front of one route (a gateway rule, a
// route middleware) slows that route's requests and not the ruler, as a slower handler would.
// Before, the ruler was `GET /console/v1/release_pipelines?limit=1` without the key: a rule on that
// route slowed the ruler with the endpoint and the compare divided the slowdown away.
// A profile adds `calibration: calibrationScenario()` to its scenarios and `calibration` to its jobs.
import { CALIBRATION_ENDPOINT as CALIBRATION } from '../../core/formats.ts';
import { answered, checkThat } from './checks.ts';
import { CALIBRATION_PATH_SET, PAIRED } from './env.ts';
import { timedCall, REFUSED } from './http.ts';
import { type ProfileScenario, RULER } from './profiles.ts';

/**
 * The path no operation of the spec has (part 4 lists them all). LOAD_CALIBRATION_PATH replaces it
 * for the power benchmark's comparison with the ruler before (harness/bench/power.ts, --calibration).
 */
export const CALIBRATION_PATH = CALIBRATION_PATH_SET ?? '/console/v1/console-conformance/calibration';

/**
 * Constant in every profile: the ruler must not change with the load around it. In a paired run the
 * ruler's pairs are subtracted from every operation's, so their noise is in every interval: there it
 * gets as many requests as the busiest operation (20/s), not 5.
 */
export function calibrationScenario(seconds: number): ProfileScenario {
  return { kind: 'constant', exec: CALIBRATION, rate: PAIRED ? 20 : RULER.rate, seconds, maxVUs: PAIRED ? 8 : RULER.maxVUs };
}

/** The job of the calibration scenario. */
export async function calibration(): Promise<void> {
  const res = await timedCall('GET', CALIBRATION_PATH, { endpoint: CALIBRATION, expected: REFUSED, anonymous: true });
  // Inferred, not stated: the spec requires the key of its operations (spec 5) and says nothing of a
  // path that is none; refusing it is what any server does, and a server that does not has no ruler.
  if (answered(CALIBRATION, res))
    checkThat(CALIBRATION, 'a request to no operation, without the key, is refused with a 4xx', res.status >= 400 && res.status < 500, 'errors.badInput.4xx');
}
