// What verify's stages share: the options, the run they are handed (configuration, reports folder,
// time left, the numbered progress line) and the small helpers of their stage results.
import { relative } from 'node:path';
import { type AuthProbes, type Config, ROOT } from '../../../core/config.ts';
import type { StageResult } from '../../../core/formats.ts';

export interface VerifyOptions {
  /** --waive, as given: clauses left out on purpose for this run (`<glob>=<reason>` each). */
  waive?: string[];
  strict: boolean;
  /** Only reads and dryRun writes reach the target; the load runs its paging profile only (also CONSOLE_READ_ONLY=1). */
  readOnly?: boolean;
  /** --auth-probes: which wrong keys the auth tests send (also CONSOLE_AUTH_PROBES). */
  authProbes?: AuthProbes;
  skipLoad: boolean;
  profile: string;
  baselines: string | undefined;
  observationsBaseline: string | undefined;
  grep: string | undefined;
  deadline: string | undefined;
  /** The run history file (--history), else CONSOLE_HISTORY, else reports/history.sqlite. */
  history?: string | undefined;
  /** Artillery runners per load profile (--runners, load:* --runners): above 1, their records merged. */
  runners?: number;
}

/** What the stages share: the options, the configuration, where reports go and how much time is left. */
export interface Run {
  opts: VerifyOptions;
  env: NodeJS.ProcessEnv;
  config: Config;
  key: string;
  reportsDir: string;
  historyFile: string;
  observationsBaseline: string | undefined;
  left(): number;
  say(text: string): void;
}

/** A path relative to the repository when inside it: a report shows no home folders. */
export const shortPath = (p: string) => (relative(ROOT, p).startsWith('..') ? p : relative(ROOT, p));

export const secs = (t0: number) => (Date.now() - t0) / 1000;

export const notRunStage = (name: string, detail: string): StageResult => ({ name, status: 'error', exitCode: 3, seconds: 0, detail });
