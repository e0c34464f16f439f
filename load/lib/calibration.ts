// The calibration request, shared by every script: one the target answers without work (no key: a
// refusal, spec 5; 401 or 403 or another 4xx, spec 7 does not say which), sent at a constant rate in every profile and timed under the same load as the endpoints,
// so the baseline compare can divide by it (docs/load.md, "Calibration"). A script adds
// `calibration: calibrationScenario()` to its scenarios and exports `calibration` as that scenario's exec.
import http from 'k6/http';
import type { Scenario } from 'k6/options';
import { answered, checkThat } from './checks.ts';
import { BASE_URL, REQUEST_TIMEOUT } from './env.ts';
import { SHARED } from './profiles.ts';

export const CALIBRATION = 'calibration';

/** Constant in every profile: the ruler must not change with the load around it. */
export function calibrationScenario(seconds = SHARED.seconds): Scenario {
  return { executor: 'constant-arrival-rate', exec: CALIBRATION, rate: 5, timeUnit: '1s', duration: `${seconds}s`, preAllocatedVUs: 1, maxVUs: 4 };
}

/** The exec function of the calibration scenario. */
export function calibration(): void {
  const res = http.get(`${BASE_URL}/console/v1/release_pipelines?limit=1`, {
    tags: { endpoint: CALIBRATION, name: CALIBRATION },
    responseCallback: http.expectedStatuses({ min: 400, max: 499 }),
    timeout: REQUEST_TIMEOUT,
  });
  if (answered(CALIBRATION, res))
    checkThat(CALIBRATION, 'a request without the key is refused with a 4xx (spec 5)', res.status >= 400 && res.status < 500, 'stated');
}
