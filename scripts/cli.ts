// console-conformance <command> [options]: the installed package's one command (bin/console-conformance.mjs
// starts it with tsx). Each command is the file its npm script runs, imported in this process with its
// own options, so `npx console-conformance verify` and `npm run verify` are the same code.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fail, rewriteHelp } from '../core/command.ts';
import { anchorPaths, ROOT } from '../core/config.ts';
import { EXIT } from '../core/exit.ts';
import { packageCommit, packageVersion } from '../core/package.ts';
import { contractDocument } from '../contracts/index.ts';

interface Command {
  /** The command file, relative to the package. */
  file: string;
  /** Its npm scripts in this repository, and what they are called here (`load:paging` is `load paging`). */
  scripts: Record<string, string>;
  summary: string;
}

export const COMMANDS: Record<string, Command> = {
  verify: { file: 'scripts/verify.ts', scripts: { verify: 'verify' }, summary: 'the main job: target check, conformance suite, load, secret scan, report' },
  conformance: { file: 'contracts/conformance.ts', scripts: { conformance: 'conformance' }, summary: 'the conformance suite alone (Playwright)' },
  load: {
    file: 'load/command/load.ts',
    scripts: { 'load:paging': 'load paging', 'load:mutation': 'load mutation', 'load:smoke': 'load smoke', 'load:*': 'load' },
    summary: 'one load profile: load paging|mutation|smoke',
  },
  'manifest-check': {
    file: 'manifest-check/cli.ts',
    scripts: { 'manifest:check': 'manifest-check', 'target:check': 'manifest-check' },
    summary: 'the target manifest read against the target, without writing (target-check: its first name)',
  },
  baseline: {
    file: 'load/command/baseline.ts',
    scripts: { 'baseline:update': 'baseline update', 'baseline:compare': 'baseline compare' },
    summary: 'baseline update|compare: record the last load run as the baseline, or compare with it',
  },
  report: { file: 'report/cli.ts', scripts: { report: 'report' }, summary: "rewrite reports/index.html from a run's files" },
  serve: { file: 'reference/cli.ts', scripts: { serve: 'serve' }, summary: 'the reference server (prints "listening on http://HOST:PORT")' },
};

/** Commands' first names, still run as before by the pipelines that call them: name -> command. */
export const ALIASES: Record<string, string> = { 'target-check': 'manifest-check' };

/** The candidate compare, where this copy of the suite has it. */
if (existsSync(join(ROOT, 'candidate/command.ts')))
  COMMANDS.candidate = {
    file: 'candidate/command.ts',
    scripts: { candidate: 'candidate' },
    summary: 'the same checks against two deployments, side by side',
  };

const NAME = 'console-conformance';

function version(): string {
  const spec = contractDocument().info as { title: string; version: string };
  return [`${NAME} ${packageVersion()}`, `spec: ${spec.title} ${spec.version}`, `commit: ${packageCommit()}`].join('\n');
}

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return `usage: ${NAME} <command> [options]
       ${NAME} <command> --help
       ${NAME} --version

Checks a Console Management Interface v1 server against its spec, from your server's repository.
Reports go to ./reports of the folder it is run from (--reports-dir or CONSOLE_REPORTS_DIR to change).

commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
  .join('\n')}

Configuration: environment variables (CONSOLE_BASE_URL, CONSOLE_API_KEY, CONSOLE_TARGET_MANIFEST...;
docs/environment.md in the package) or the options of the same meaning (--base-url, --api-key-file,
--manifest, --reports-dir...: each command's --help). The key comes from CONSOLE_API_KEY or a file
(--api-key-file), never an option. Without --base-url, a reference server is started for the run.
Exit codes: 0 pass, 1 contract failure, 2 performance regression, 3 could not be carried out.`;
}

/** `npm run load:paging --` in a command's help becomes `console-conformance load paging`. */
function helpForPackage(help: string): string {
  const names = new Map(Object.values(COMMANDS).flatMap((c) => Object.entries(c.scripts)));
  return help.replace(/npm run ([a-z0-9:*]+)(?:\s+--(?=\s))?/g, (text, script: string) => (names.has(script) ? `${NAME} ${names.get(script)}` : text));
}

export async function dispatch(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === undefined) fail(NAME, 'no command given (see --help)');
  if (first === '--help' || first === '-h' || first === 'help') {
    console.log(help());
    process.exit(EXIT.pass);
  }
  if (first === '--version' || first === '-V') {
    console.log(version());
    process.exit(EXIT.pass);
  }
  const command = COMMANDS[ALIASES[first] ?? first];
  if (!command) fail(NAME, `${first.startsWith('-') ? 'unknown option' : 'unknown command'} ${first} (see --help)`);
  anchorPaths(process.env, process.cwd());
  rewriteHelp(helpForPackage);
  // The command file reads its options from process.argv, as under `npm run`.
  process.argv = [process.argv[0], join(ROOT, command.file), ...rest];
  await import(pathToFileURL(join(ROOT, command.file)).href);
}
