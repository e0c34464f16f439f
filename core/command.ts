// What every command does the same way: its options parsed with node:util parseArgs, `--help`
// printed, a mistake told in one line with exit 3 (the README's "the run could not be carried out"),
// and the code of its work turned into the process's exit. A command file parses, calls and exits;
// the work lives in a module a test can import.
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

function mistake(err: unknown): string {
  const message = (err as Error).message.split('\n')[0];
  const unknown = /Unknown option '([^']+)'/.exec(message);
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
}

/**
 * The command's options, checked strictly: `--help`/`-h` prints the help and exits 0; an unknown
 * option, a missing value or an operand where none is taken is one line and exit 3.
 */
export function parseCommand<const O extends Options>(spec: CommandSpec<O>, argv: string[] = process.argv.slice(2)) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...spec.options, ...HELP_OPTION }, strict: true, allowPositionals: spec.positionals ?? false });
  } catch (err) {
    fail(spec.name, mistake(err));
  }
  if ((parsed.values as Record<string, unknown>).help) {
    console.log(spec.help);
    process.exit(EXIT.pass);
  }
  return { values: parsed.values as ReturnType<typeof parseArgs<{ options: O; strict: true }>>['values'], positionals: parsed.positionals };
}

/**
 * For a command that hands what it does not know to another program (conformance passes Playwright's
 * options through): its own options taken out, the rest returned in order, untouched.
 */
export function parseKnown<const O extends Options>(spec: CommandSpec<O>, argv: string[] = process.argv.slice(2)) {
  const options = { ...spec.options, ...HELP_OPTION };
  const { tokens } = parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  const values: Record<string, unknown> = {};
  const taken = new Set<number>();
  for (const t of tokens) {
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
  if (values.help) {
    console.log(spec.help);
    process.exit(EXIT.pass);
  }
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
