// What every command does the same way: its options parsed with node:util parseArgs, `--help`
// printed, a mistake told in one line with exit 3 (the README's "the run could not be carried out"),
// and the code of its work turned into the process's exit. A command file parses, calls and exits;
// the work lives in a module a test can import.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from './config.ts';
import { EXIT } from './exit.ts';

export { worst, EXIT } from './exit.ts';

type Options = NonNullable<ParseArgsConfig['options']>;
const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

/** One line: node:util's parseArgs and some libraries explain a mistake over several. */
const oneLine = (text: string) => text.trim().replace(/\s*\n\s*/g, ' ');

/** `NAME: reason` on stderr and exit 3. */
export function fail(name: string, reason: string): never {
  console.error(`${name}: ${oneLine(reason)}`);
  process.exit(EXIT.notCarriedOut);
}

/** Where a key given as an option would show: process lists, shell history, CI logs. */
const KEY_NEVER_AN_OPTION = 'the key is never an option (it would show in process lists and shell history): set CONSOLE_API_KEY or give --api-key-file FILE';

function mistake(err: unknown): string {
  const message = (err as Error).message.split('\n')[0];
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown && /^--api-key(=|$)/.test(unknown[1])) return KEY_NEVER_AN_OPTION;
  if (unknown) return `unknown option ${unknown[1]} (see --help)`;
  return `${message.replace(/\. To specify a positional argument.*$/, '')} (see --help)`;
}

export interface CommandSpec<O extends Options> {
  /** The prefix of its one-line errors: `npm run verify` says `verify: ...`. */
  name: string;
  help: string;
  options: O;
  /** Operands after the options (folders, files); refused unless allowed. */
  positionals?: boolean;
  /** A command that reaches a target: it takes TARGET_OPTIONS too. */
  target?: boolean;
}

/**
 * The documented environment variables of a target, as options of every command that reaches one
 * (docs/environment.md): each sets its variable for the command and the processes it starts. The key
 * is read from a file, never given as an option.
 */
const TARGET_OPTIONS = {
  'base-url': { type: 'string' },
  'api-key-file': { type: 'string' },
  manifest: { type: 'string' },
  'reports-dir': { type: 'string' },
  'request-timeout': { type: 'string' },
  'allow-remote-load': { type: 'boolean' },
} as const;

const TARGET_HELP = `
Target options (each the same as its environment variable, which it overrides):
  --base-url URL          CONSOLE_BASE_URL: the target's host root (unset: a reference server is started)
  --api-key-file FILE     CONSOLE_API_KEY read from FILE (its first line); the key is never an option
  --manifest FILE         CONSOLE_TARGET_MANIFEST: the target manifest
  --reports-dir DIR       CONSOLE_REPORTS_DIR: where reports are written and read (default reports/)
  --request-timeout SECONDS
                          CONSOLE_REQUEST_TIMEOUT: how long one request may take (default 15)
  --allow-remote-load     CONSOLE_ALLOW_REMOTE_LOAD=1: load may go to a target that is not loopback`;

/** Sets the environment from the target options given; paths made absolute, for children started elsewhere. */
function applyTargetOptions(name: string, values: Record<string, unknown>, env: NodeJS.ProcessEnv): void {
  const text = (option: string) => {
    const v = values[option] as string | undefined;
    if (v !== undefined && v.trim() === '') fail(name, `--${option} needs a value (see --help)`);
    return v;
  };
  const baseUrl = text('base-url');
  if (baseUrl !== undefined) env.CONSOLE_BASE_URL = baseUrl;
  const keyFile = text('api-key-file');
  if (keyFile !== undefined) {
    let key: string;
    try {
      key = readFileSync(keyFile, 'utf8').split(/\r?\n/)[0].trim();
    } catch (err) {
      fail(name, `--api-key-file: cannot read ${keyFile} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (!key) fail(name, `--api-key-file: ${keyFile} is empty`);
    env.CONSOLE_API_KEY = key;
  }
  const manifest = text('manifest');
  if (manifest !== undefined) {
    env.CONSOLE_TARGET_MANIFEST = resolve(manifest);
    delete env.CONSOLE_FIXTURES;
  }
  const reportsDir = text('reports-dir');
  if (reportsDir !== undefined) env.CONSOLE_REPORTS_DIR = resolve(reportsDir);
  const timeout = text('request-timeout');
  if (timeout !== undefined) env.CONSOLE_REQUEST_TIMEOUT = timeout;
  if (values['allow-remote-load']) env.CONSOLE_ALLOW_REMOTE_LOAD = '1';
}

/**
 * How a command's help names it: `npm run verify --` in this repository; the packaged command
 * (scripts/cli.ts) rewrites that to `console-conformance verify`.
 */
let helpRewrite: (help: string) => string = (help) => help;
export function rewriteHelp(rewrite: (help: string) => string): void {
  helpRewrite = rewrite;
}

function printHelp(spec: CommandSpec<Options>): never {
  console.log(helpRewrite(spec.target ? `${spec.help}\n${TARGET_HELP}` : spec.help));
  process.exit(EXIT.pass);
}

const optionsOf = (spec: CommandSpec<Options>) => ({ ...spec.options, ...(spec.target ? TARGET_OPTIONS : {}), ...HELP_OPTION });

/**
 * The command's options, checked strictly: `--help`/`-h` prints the help and exits 0; an unknown
 * option, a missing value or an operand where none is taken is one line and exit 3.
 */
export function parseCommand<const O extends Options>(spec: CommandSpec<O>, argv: string[] = process.argv.slice(2)) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: optionsOf(spec), strict: true, allowPositionals: spec.positionals ?? false });
  } catch (err) {
    fail(spec.name, mistake(err));
  }
  if ((parsed.values as Record<string, unknown>).help) printHelp(spec);
  if (spec.target) applyTargetOptions(spec.name, parsed.values, process.env);
  return { values: parsed.values as ReturnType<typeof parseArgs<{ options: O; strict: true }>>['values'], positionals: parsed.positionals };
}

/**
 * For a command that hands what it does not know to another program (conformance passes Playwright's
 * options through): its own options taken out, the rest returned in order, untouched.
 */
export function parseKnown<const O extends Options>(spec: CommandSpec<O>, argv: string[] = process.argv.slice(2)) {
  const options = optionsOf(spec);
  const { tokens } = parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  const values: Record<string, unknown> = {};
  const taken = new Set<number>();
  for (const t of tokens) {
    if (t.kind === 'option' && t.name === 'api-key' && !(t.name in options)) fail(spec.name, KEY_NEVER_AN_OPTION);
    if (t.kind !== 'option' || !(t.name in options)) continue;
    const def = options[t.name as keyof typeof options] as { type: 'string' | 'boolean'; multiple?: boolean };
    taken.add(t.index);
    if (def.type === 'string') {
      if (t.value === undefined) fail(spec.name, `--${t.name} needs a value (see --help)`);
      if (t.inlineValue === false) taken.add(t.index + 1);
    }
    const v = def.type === 'string' ? t.value : true;
    values[t.name] = def.multiple ? [...((values[t.name] as unknown[]) ?? []), v] : v;
  }
  if (values.help) printHelp(spec);
  if (spec.target) applyTargetOptions(spec.name, values, process.env);
  return { values: values as ReturnType<typeof parseArgs<{ options: O; strict: true }>>['values'], rest: argv.filter((_, i) => !taken.has(i)) };
}

/**
 * Runs the command's work and exits with its code. A ConfigError (bad configuration, a target that
 * cannot be used) and any other error end the same way as a mistake: one line, exit 3.
 */
export function runCommand(name: string, work: () => Promise<number> | number): void {
  Promise.resolve()
    .then(work)
    .then(
      (code) => process.exit(code),
      (err: unknown) => fail(name, err instanceof ConfigError ? err.message : ((err as Error)?.message ?? String(err))),
    );
}

/**
 * A whole-number option: `fallback` when not given, else an integer from `min` to `max` (default: no
 * upper bound), or the command's one-line mistake (exit 3) naming the option and its range.
 */
export function integerOption(command: string, name: string, value: string | undefined, range: { min: number; max?: number; fallback: number }): number {
  if (value === undefined) return range.fallback;
  const n = Number(value);
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  if (value.trim() === '' || !Number.isSafeInteger(n) || n < range.min || n > max)
    fail(
      command,
      `${name} must be an integer ${range.max === undefined ? `of at least ${range.min}` : `from ${range.min} to ${range.max}`}, got ${JSON.stringify(value)}`,
    );
  return n;
}
