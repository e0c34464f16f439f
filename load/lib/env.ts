// What a load profile knows about its run, from its environment only (it runs in Artillery's workers,
// which do not read core/config.ts; the names are those of docs/architecture.md, "Environment").
// load/command/run.ts sets every one of them.
export const BASE_URL: string = (process.env.CONSOLE_BASE_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
/**
 * Paired mode (`npm run candidate -- --latency`): LOAD_CANDIDATE_BASE_URL set, every request of the
 * load but setup's probes goes to both targets, the current (CONSOLE_BASE_URL) and the candidate, in
 * random order (load/lib/http.ts). Each side's key then comes from its own variable.
 */
export const CANDIDATE_BASE_URL: string = (process.env.LOAD_CANDIDATE_BASE_URL || '').replace(/\/+$/, '');
export const PAIRED = CANDIDATE_BASE_URL !== '';
// The keys are read here and only put into request headers; they are never logged or returned from setup().
export const API_KEY: string = (PAIRED ? process.env.CONSOLE_CURRENT_API_KEY : process.env.CONSOLE_API_KEY) || '';
export const CANDIDATE_API_KEY: string = PAIRED ? process.env.CONSOLE_CANDIDATE_API_KEY || '' : '';
export const PROFILES = ['smoke', 'baseline', 'stress'] as const;
export type ProfileName = (typeof PROFILES)[number];
const isProfile = (name: string): name is ProfileName => (PROFILES as readonly string[]).indexOf(name) >= 0;
const profile = process.env.LOAD_PROFILE || 'smoke';
if (!isProfile(profile)) throw new Error(`LOAD_PROFILE must be one of ${PROFILES.join(', ')}, got ${profile}`);
export const PROFILE: ProfileName = profile;
export const REPORT_DIR: string = process.env.LOAD_REPORT_DIR || 'reports/load';
export const DATA_DIR: string = process.env.LOAD_DATA_DIR || './data';
export const KEY_HEADER = 'SERVICE-API-KEY';
/** CONSOLE_STRICT: an inferred check that fails crosses a threshold (exit 1), as in the conformance suite. */
export const STRICT: boolean = process.env.LOAD_STRICT === '1';
/** Seconds one request may take (CONSOLE_REQUEST_TIMEOUT); past it the request counts as a transport failure. */
export const REQUEST_TIMEOUT_MS = (Number(process.env.LOAD_REQUEST_TIMEOUT) > 0 ? Number(process.env.LOAD_REQUEST_TIMEOUT) : 15) * 1000;
export const REDACTED = '<redacted>';
