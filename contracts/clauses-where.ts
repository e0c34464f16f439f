// npm run clauses:where -- <id or glob>...
// Where each clause is checked and proved: the spec's lines that state it, the tests and lines that check
// it, the faults aimed at it and those that prove it (contracts/where.ts does the work; the faults aimed
// at each clause come from the reference's own list, `serve --list-faults --generated`). An id or glob that names no clause is exit 3.
import { EXIT, fail, parseCommand } from '../core/command.ts';
import { CLAUSES } from './support/clauses.ts';
import { listSwitches } from './selftest-runs.ts';
import { matching, shown, whereOf } from './where.ts';

const NAME = 'clauses:where';
const HELP = `usage: npm run clauses:where -- <id or glob>...

For each clause of contracts/clauses.yaml whose id is given (or matches a glob: * any characters,
e.g. 'metric.field.*'): the spec's lines that state it (with the table or list a line ending in a
colon introduces), the tests that name it and where they are, the lines that assert it (a t.clause
step, a checkAs() check, a shared check; for a clause a test names by prefix, that line and the
shared response-schema check), the contract's x-clauses, the faults aimed at it (the reference's
entries naming it, hand-written and generated), each marked by what its run in docs/clause-proof.json
did (DOES NOT FAIL IT when the run failed other clauses), and the faults that prove it.

  --help    this text

Environment: none read. Exit 0 all found, 3 an id or glob that names no clause (one line), or none given.`;

const { positionals } = parseCommand({ name: NAME, help: HELP, options: {}, positionals: true });
if (positionals.length === 0) fail(NAME, 'give a clause id or glob (see --help)');
const found = positionals.map((p) => ({ pattern: p, clauses: matching(CLAUSES, p) }));
const none = found.find((f) => f.clauses.length === 0);
if (none) fail(NAME, `no clause ${none.pattern.includes('*') ? 'matches' : 'has the id'} ${JSON.stringify(none.pattern)} in contracts/clauses.yaml`);
const clauses = [...new Map(found.flatMap((f) => f.clauses).map((c) => [c.id, c])).values()];
const { faults } = listSwitches(true);
const aimedAt = new Map<string, string[]>();
for (const f of faults) aimedAt.set(f.clause, [...(aimedAt.get(f.clause) ?? []), f.name]);
console.log(whereOf(clauses, aimedAt).map(shown).join('\n\n'));
process.exit(EXIT.pass);
