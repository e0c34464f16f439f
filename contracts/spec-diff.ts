// npm run spec:diff -- OLD NEW [--json] [--fail-on CLASS]: the clauses two revisions of the spec add,
// remove and change, each with its spec lines before and after and whom it breaks (contracts/model/spec-diff.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { fail, parseCommand, runCommand } from '../core/command.ts';
import { ROOT } from '../core/config.ts';
import { CLAUSES_PATH, OVERLAY_PATH } from './build.ts';
import type { Overlay } from './model/contract-model.ts';
import { type ChangeClass, type ClauseDiff, diffSpecs } from './model/spec-diff.ts';

const NAME = 'spec:diff';
const CLASSES: ChangeClass[] = ['breaking-for-servers', 'breaking-for-clients', 'compatible'];
const HELP = `usage: npm run spec:diff -- OLD NEW [--json] [--fail-on CLASS]

Compares two revisions of the spec clause by clause: the clauses of contracts/clauses.yaml that the
change adds, removes or changes, each with its spec lines before and after, classed as oasdiff
classes changes:
  breaking-for-servers   a server that keeps OLD now breaks NEW (a bound widened, a message
                         reworded, a new operation, a value the server must now accept)
  breaking-for-clients   a client written for OLD may be refused or misread (a bound narrowed,
                         a value removed from what it may send, an operation removed)
  compatible             neither (the words of an open clause, a new optional response field)

OLD and NEW are each a file, or a git revision of contracts/spec/console-v1.md (HEAD, main~3,
a tag), or REV:PATH. The clauses' levels and ids come from the committed catalogue and overlay.

  --json          the diff as JSON on stdout ({ clauses, facts }), for CI
  --fail-on C     exit 1 when a change is of class C (breaking-for-servers or breaking-for-clients)
  --help          this text

Exit 0 compared (and nothing of --fail-on's class), 1 a change of --fail-on's class, 3 a revision
cannot be read, or a bad option.`;

/** A spec revision's text: a file, or what git holds at REV (REV:PATH, or REV of the committed spec). */
function specText(arg: string): string {
  if (existsSync(arg)) return readFileSync(arg, 'utf8');
  const spec = arg.includes(':') ? arg : `${arg}:contracts/spec/console-v1.md`;
  try {
    return execFileSync('git', ['show', spec], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    return fail(NAME, `${arg} is neither a file nor a git revision of the spec (git show ${spec} failed)`);
  }
}

function clauseLines(c: ClauseDiff): string {
  const lines = [`${c.kind.padEnd(8)} ${c.id}  [${c.level}, ${c.section}]  ${c.class.join(', ')}`];
  if (c.before) lines.push(`  - ${c.before.line !== undefined ? `line ${c.before.line}: ` : ''}${c.before.text}`);
  if (c.after) lines.push(`  + ${c.after.line !== undefined ? `line ${c.after.line}: ` : ''}${c.after.text}`);
  lines.push(`  because: ${c.because.join('; ')}`);
  return lines.join('\n');
}

function main(): number {
  const { values, positionals } = parseCommand({
    name: NAME,
    help: HELP,
    options: { json: { type: 'boolean' }, 'fail-on': { type: 'string' } },
    positionals: true,
  });
  if (positionals.length !== 2) fail(NAME, `give two revisions, OLD and NEW (got ${positionals.length}; see --help)`);
  const failOn = values['fail-on'] as ChangeClass | undefined;
  if (failOn && !CLASSES.includes(failOn)) fail(NAME, `--fail-on takes ${CLASSES.slice(0, 2).join(' or ')}, not ${failOn}`);
  const [oldArg, newArg] = positionals;
  const overlay = parse(readFileSync(OVERLAY_PATH, 'utf8')) as Overlay;
  let diff: ReturnType<typeof diffSpecs>;
  try {
    diff = diffSpecs(specText(oldArg), specText(newArg), overlay, readFileSync(CLAUSES_PATH, 'utf8'));
  } catch (err) {
    return fail(NAME, (err as Error).message);
  }
  if (values.json) console.log(JSON.stringify(diff, null, 2));
  else {
    const count = (k: ClauseDiff['kind']) => diff.clauses.filter((c) => c.kind === k).length;
    const byClass = CLASSES.map((k) => `${diff.clauses.filter((c) => c.class.includes(k)).length} ${k.replace(/-/g, ' ')}`);
    console.log(
      `spec:diff ${oldArg} -> ${newArg}: ${count('changed')} clause(s) changed, ${count('added')} added, ${count('removed')} removed (${byClass.join(', ')})`,
    );
    for (const c of diff.clauses) console.log(`\n${clauseLines(c)}`);
  }
  return failOn && diff.clauses.some((c) => c.class.includes(failOn)) ? 1 : 0;
}

runCommand(NAME, main);
