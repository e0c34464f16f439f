// A run's shape and limits as data, in Artillery's own config format, so that a performance engineer
// shapes a run the way Artillery's documentation shows: `--config FILE` (YAML or JSON, `config:` at its
// top), `--overrides JSON` (merged over it as Artillery's own --overrides is: objects merge, arrays
// replace) and `--environment NAME` (config.environments[NAME] merged in, as Artillery's -e). What is
// read: `config.phases` (the shape; the profile's scenarios then give only the mix of jobs),
// `config.ensure` (limits on the `console.<endpoint>` metrics, judged by Artillery's ensure plugin),
// `config.plugins` (Artillery's own: publish-metrics, apdex, metrics-by-endpoint), `config.apdex`
// and `config.environments`. What the suite sets itself (target, processor, http, scenarios) is refused,
// as is anything else, with one line: a typo in a limit must not pass as a run without it.
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { join } from 'node:path';
import { ConfigError, ROOT } from '../../core/config.ts';

/** A phase as the shape gives it: an arrival rate (ramped to rampTo) for `duration` seconds, at most maxVusers at once. */
export interface ShapePhase {
  name?: string;
  duration: number;
  arrivalRate: number;
  rampTo?: number;
  maxVusers?: number;
}

/** A plugin's settings as Artillery takes them: an object, or a list of objects (publish-metrics' reporters). */
export type PluginSettings = Record<string, unknown> | Record<string, unknown>[];

export interface Shape {
  phases?: ShapePhase[];
  ensure?: Record<string, unknown>;
  plugins?: Record<string, PluginSettings>;
  /** `config.apdex`, as given (Artillery's apdex plugin reads it). */
  apdex?: { threshold: number };
  /** The apdex threshold T (ms) the suite's requests are scored by, when the apdex plugin is asked for. */
  apdexMs?: number;
  /** Where it came from, for the summary and the console. */
  source: string;
}

/** The longest run a shape may ask for (a soak of four hours), and the highest rate of a phase. */
export const MAX_SHAPE_SECONDS = 4 * 3600;
export const MAX_ARRIVAL_RATE = 10_000;

const CONFIG_KEYS = ['phases', 'ensure', 'plugins', 'environments', 'apdex'];
/** Artillery's apdex plugin's default threshold T, in ms. */
const APDEX_DEFAULT_MS = 500;
const SET_BY_THE_SUITE: Record<string, string> = {
  target: 'the target is CONSOLE_BASE_URL (or the reference server started for the run)',
  processor: 'the processor is the suite’s (load/artillery/processor.ts)',
  http: 'the request timeout is CONSOLE_REQUEST_TIMEOUT',
  payload: 'request bodies are written ahead by fixtures/generate.ts',
  variables: 'the profiles take no variables',
};
const PHASE_KEYS = ['name', 'duration', 'arrivalRate', 'rampTo', 'maxVusers'];
const ENSURE_KEYS = ['thresholds', 'conditions', 'maxErrorRate', 'min', 'max', 'median', 'p95', 'p99'];
// The suite's own plugin; Artillery's cloud and reporting plugins need what a loopback run has not.
const PLUGINS_REFUSED: Record<string, string> = {
  'console-progress': 'is the suite’s own',
};

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Artillery's --overrides merge: objects merge key by key, anything else (arrays included) replaces. */
export function mergeConfig(base: unknown, over: unknown): unknown {
  if (!isObject(base) || !isObject(over)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = mergeConfig(base[k], v);
  return out;
}

function phasesOf(value: unknown, where: string): ShapePhase[] {
  if (!Array.isArray(value) || value.length === 0) throw new ConfigError(`${where}: config.phases must be a non-empty list of phases`);
  let seconds = 0;
  const phases = value.map((p, i) => {
    const at = `${where}: config.phases[${i}]`;
    if (!isObject(p)) throw new ConfigError(`${at} must be an object`);
    for (const k of Object.keys(p))
      if (!PHASE_KEYS.includes(k))
        throw new ConfigError(
          `${at}.${k} is not supported: a phase is ${PHASE_KEYS.join(', ')} (an arrival rate, so that the run can tell whether it was delivered)`,
        );
    const number = (k: string, min: number, max: number, integer: boolean) => {
      const v = p[k];
      if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v)))
        throw new ConfigError(`${at}.${k} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${JSON.stringify(v)}`);
      return v;
    };
    const phase: ShapePhase = {
      duration: number('duration', 1, MAX_SHAPE_SECONDS, true),
      arrivalRate: number('arrivalRate', 0, MAX_ARRIVAL_RATE, true),
    };
    if (p.name !== undefined) {
      if (typeof p.name !== 'string') throw new ConfigError(`${at}.name must be a string`);
      phase.name = p.name;
    }
    if (p.rampTo !== undefined) phase.rampTo = number('rampTo', 0, MAX_ARRIVAL_RATE, true);
    if (p.maxVusers !== undefined) phase.maxVusers = number('maxVusers', 1, 100_000, true);
    seconds += phase.duration;
    return phase;
  });
  if (seconds > MAX_SHAPE_SECONDS) throw new ConfigError(`${where}: config.phases last ${seconds} s in all; at most ${MAX_SHAPE_SECONDS} s`);
  return phases;
}

function ensureOf(value: unknown, where: string): Record<string, unknown> {
  if (!isObject(value)) throw new ConfigError(`${where}: config.ensure must be an object (thresholds, conditions, maxErrorRate)`);
  for (const k of Object.keys(value))
    if (!ENSURE_KEYS.includes(k)) throw new ConfigError(`${where}: config.ensure.${k} is not one of Artillery's ensure keys (${ENSURE_KEYS.join(', ')})`);
  if (value.thresholds !== undefined) {
    if (!Array.isArray(value.thresholds)) throw new ConfigError(`${where}: config.ensure.thresholds must be a list of {metric: limit}`);
    value.thresholds.forEach((t, i) => {
      const entries = isObject(t) ? Object.entries(t) : [];
      if (entries.length !== 1 || typeof entries[0][1] !== 'number' || !Number.isFinite(entries[0][1]))
        throw new ConfigError(`${where}: config.ensure.thresholds[${i}] must be one metric and its limit, e.g. {"console.listExperiments.deep.p95": 300}`);
    });
  }
  if (value.conditions !== undefined) {
    if (!Array.isArray(value.conditions)) throw new ConfigError(`${where}: config.ensure.conditions must be a list of {expression, strict}`);
    value.conditions.forEach((c, i) => {
      if (!isObject(c) || typeof c.expression !== 'string' || (c.strict !== undefined && typeof c.strict !== 'boolean'))
        throw new ConfigError(`${where}: config.ensure.conditions[${i}] must be {expression: string, strict?: boolean}`);
    });
  }
  return value;
}

function pluginsOf(value: unknown, where: string): Record<string, PluginSettings> {
  if (!isObject(value)) throw new ConfigError(`${where}: config.plugins must be an object of plugin names to their settings`);
  for (const [name, settings] of Object.entries(value)) {
    if (PLUGINS_REFUSED[name]) throw new ConfigError(`${where}: config.plugins.${name} ${PLUGINS_REFUSED[name]}`);
    // publish-metrics takes a list of reporters; every other plugin an object.
    if (!isObject(settings) && !(Array.isArray(settings) && settings.every(isObject)))
      throw new ConfigError(`${where}: config.plugins.${name} must be an object of its settings (or, as publish-metrics, a list of them)`);
    // The key goes to the target in a header and nowhere else: a plugin's settings may not name it.
    if (/CONSOLE_(API_KEY|CURRENT_API_KEY|CANDIDATE_API_KEY)/.test(JSON.stringify(settings)))
      throw new ConfigError(`${where}: config.plugins.${name} refers to the API key's variable: the key goes to the target only`);
  }
  return value as Record<string, PluginSettings>;
}

/** The shapes shipped in load/shapes/, by name (`--config spike`: load/shapes/<script>.spike.yml). */
export const SHIPPED_SHAPES = ['smoke', 'baseline', 'stress', 'soak', 'spike'];

/** `--config NAME` as the file of a shipped shape of the one profile run; a path as it is. */
export function shippedShapeFile(config: string | undefined, scripts: readonly string[]): string | undefined {
  if (config === undefined || !/^[a-z]+$/.test(config) || existsSync(config)) return config;
  if (scripts.length !== 1) throw new ConfigError(`--config ${config}: a shipped shape is one profile's: run load:paging or load:mutation`);
  const file = join(ROOT, 'load/shapes', `${scripts[0]}.${config}.yml`);
  if (!existsSync(file)) throw new ConfigError(`--config ${config}: no such file, and no shipped shape of that name (${SHIPPED_SHAPES.join(', ')})`);
  return file;
}

/**
 * The shape of `--config FILE`, `--overrides JSON` and `--environment NAME` (each optional); undefined
 * when none is given. Throws a ConfigError of one line for anything it cannot take.
 */
export function readShape(o: { configFile?: string; overrides?: string; environment?: string }): Shape | undefined {
  if (o.configFile === undefined && o.overrides === undefined) {
    if (o.environment !== undefined) throw new ConfigError('--environment needs --config FILE (its config.environments) or --overrides');
    return undefined;
  }
  let doc: unknown = {};
  const sources: string[] = [];
  if (o.configFile !== undefined) {
    if (!existsSync(o.configFile)) throw new ConfigError(`--config: no file ${o.configFile}`);
    try {
      doc = parseYaml(readFileSync(o.configFile, 'utf8')) ?? {};
    } catch (err) {
      throw new ConfigError(`--config ${o.configFile}: not YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
    }
    sources.push(o.configFile);
  }
  if (o.overrides !== undefined) {
    let over: unknown;
    try {
      over = JSON.parse(o.overrides);
    } catch (err) {
      throw new ConfigError(`--overrides is not JSON: ${(err as Error).message.split('\n')[0]}`);
    }
    if (!isObject(over)) throw new ConfigError('--overrides must be a JSON object, e.g. {"config":{"phases":[{"duration":60,"arrivalRate":20}]}}');
    doc = mergeConfig(doc, over);
    sources.push('--overrides');
  }
  const where = sources.join(' + ');
  if (!isObject(doc)) throw new ConfigError(`${where}: must be an object with config: at its top`);
  for (const k of Object.keys(doc))
    if (k !== 'config')
      throw new ConfigError(`${where}: ${k} is not read: only config (phases, ensure, plugins, environments); the scenarios are the profile's`);
  const config = doc.config ?? {};
  if (!isObject(config)) throw new ConfigError(`${where}: config must be an object`);
  let merged: Record<string, unknown> = { ...config };
  if (o.environment !== undefined) {
    const envs = config.environments;
    if (!isObject(envs) || !isObject(envs[o.environment]))
      throw new ConfigError(
        `${where}: no config.environments.${o.environment}${isObject(envs) ? ` (there are: ${Object.keys(envs).join(', ') || 'none'})` : ''}`,
      );
    merged = mergeConfig(merged, envs[o.environment]) as Record<string, unknown>;
  }
  for (const k of Object.keys(merged)) {
    if (SET_BY_THE_SUITE[k]) throw new ConfigError(`${where}: config.${k} is set by the suite: ${SET_BY_THE_SUITE[k]}`);
    if (!CONFIG_KEYS.includes(k)) throw new ConfigError(`${where}: config.${k} is not read: only ${CONFIG_KEYS.join(', ')}`);
  }
  const shape: Shape = { source: o.environment ? `${where} (environment ${o.environment})` : where };
  if (merged.phases !== undefined) shape.phases = phasesOf(merged.phases, where);
  if (merged.ensure !== undefined) shape.ensure = ensureOf(merged.ensure, where);
  if (merged.plugins !== undefined) shape.plugins = pluginsOf(merged.plugins, where);
  if (merged.apdex !== undefined) {
    const a = merged.apdex;
    if (!isObject(a) || typeof a.threshold !== 'number' || !(a.threshold > 0) || Object.keys(a).some((k) => k !== 'threshold'))
      throw new ConfigError(`${where}: config.apdex must be {threshold: ms}, a positive number`);
    shape.apdex = { threshold: a.threshold };
  }
  const fromPlugin = shape.plugins?.apdex;
  if (shape.apdex || fromPlugin) {
    const t = shape.apdex?.threshold ?? (isObject(fromPlugin) ? fromPlugin.threshold : undefined) ?? APDEX_DEFAULT_MS;
    if (typeof t !== 'number' || !(t > 0)) throw new ConfigError(`${where}: config.plugins.apdex.threshold must be a positive number of ms`);
    shape.apdexMs = t;
  }
  return shape;
}
