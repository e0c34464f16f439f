// npm run load:testrun: kept so that pipelines calling it get a clear answer. It wrote a k6-operator
// TestRun; k6 is no longer used (AGPL-3.0: docs/load.md, "Why Artillery, not k6"), and Artillery's own
// distributed runs replace the operator: npm run load:cloud. Always exit 3, one line.
import { parseCommand, runCommand } from '../../core/command.ts';
import { ConfigError } from '../../core/config.ts';

const HELP = `usage: npm run load:testrun -- [anything]

Wrote a k6-operator TestRun of a load profile. k6 is no longer used (its AGPL-3.0 licence is outside this
project's dependency policy): the load runs on Artillery, and its own distributed runs (AWS Fargate)
replace the operator. Use: npm run load:cloud -- paging|mutation --platform fargate (see its --help).
Environment: none read.
Exit 0 only for --help; 3 always otherwise, with one line pointing to npm run load:cloud.`;

runCommand('load:testrun', () => {
  parseCommand({
    name: 'load:testrun',
    help: HELP,
    positionals: true,
    options: { script: { type: 'string' }, profile: { type: 'string' }, parallelism: { type: 'string' }, out: { type: 'string' } },
  });
  throw new ConfigError(
    'the k6-operator TestRun is gone with k6 (AGPL-3.0, no longer used): run npm run load:cloud -- paging|mutation --platform fargate (Artillery distributed runs)',
  );
});
