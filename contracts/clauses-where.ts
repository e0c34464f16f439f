// npm run clauses:where -- <id or glob>...
// Where each clause is checked and proved: its spec text, the tests and lines that check it, the faults
// that prove it (contracts/where.ts does the work). An id or glob that names no clause is exit 3.
import { EXIT, fail, parseCommand } from '../core/command.ts';
import { CLAUSES } from './support/clauses.ts';
import { matching, shown, whereOf } from './where.ts';

const NAME = 'clauses:where';
const HELP = `usage: npm run clauses:where -- <id or glob>...

For each clause of contracts/clauses.yaml whose id is given (or matches a glob: * any characters,
e.g. 'metric.field.*'): its text in the spec, the tests that name it and where they are, the lines
that assert it (a t.clause step, a checkAs() check, a shared check; for a clause a test names by
prefix, that line and the shared response-schema check), the contract's x-clauses, and the faults
that prove it (docs/clause-proof.json, npm run clauses:proof).

  --help    this text

Environment: none read. Exit 0 all found, 3 an id or glob that names no clause (one line), or none given.`;

const { positionals } = parseCommand({ name: NAME, help: HELP, options: {}, positionals: true });
if (positionals.length === 0) fail(NAME, 'give a clause id or glob (see --help)');
const found = positionals.map((p) => ({ pattern: p, clauses: matching(CLAUSES, p) }));
const none = found.find((f) => f.clauses.length === 0);
if (none) fail(NAME, `no clause ${none.pattern.includes('*') ? 'matches' : 'has the id'} ${JSON.stringify(none.pattern)} in contracts/clauses.yaml`);
const clauses = [...new Map(found.flatMap((f) => f.clauses).map((c) => [c.id, c])).values()];
console.log(whereOf(clauses).map(shown).join('\n\n'));
process.exit(EXIT.pass);
