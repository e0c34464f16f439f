// npm run manifest:check: the manifest read against the target without writing (manifest-check/check.ts).
// target:check, its first name, is the same script (package.json), kept for the pipelines that call it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseCommand, runCommand } from '../core/command.ts';
import { loadConfig, ROOT } from '../core/config.ts';
import { referenceUnlessTarget } from '../core/reference.ts';
import { finishedLine, finishOwed } from '../core/restore.ts';
import { runManifestCheck } from './run-check.ts';

const NAME = 'manifest:check';
const HELP = `usage: npm run manifest:check

Reads the target manifest against the target without writing anything: every experiment is in the
experiment list, every trigger's pipeline and phases are in the pipeline list; from the run history
(the spec has no gate or trigger read) how many phases and pauses each trigger has left, how many rules
each gate held at its last answer and how many a night adds, how many metrics a night creates; and how
many more nights the manifest lasts at the consumption measured over the last runs (before any run, the
suite's design: 2 phases a night). Writes reports/target-check.json. verify runs it first against a
target and warns from 5 nights before the manifest runs out. Its first name, target:check, still
runs it.

One write comes first: when the ledger in the reports folder says an earlier run against this target was
cut before its restore (SIGKILL, a lost machine), the gates it owes are given back to the state the owners
had, and a line says so (not under CONSOLE_READ_ONLY=1).

  --help   this text

Environment: CONSOLE_BASE_URL and CONSOLE_API_KEY (else a reference server started for the check),
CONSOLE_TARGET_MANIFEST, CONSOLE_HISTORY, CONSOLE_REPORTS_DIR, CONSOLE_REQUEST_TIMEOUT.
Exit 0 the manifest fits the target (warnings printed); 3 it cannot work: the target is down or not the
Console API, a manifest id is unknown to it, or its triggers have run out (one line says which).`;

parseCommand({ name: NAME, help: HELP, options: {}, target: true });

runCommand(NAME, async () => {
  const env = { ...process.env };
  const config = loadConfig(env);
  const server = await referenceUnlessTarget(config, env);
  try {
    // The one write target:check makes: what an earlier run cut short still owes the target, given back first.
    if (!server && !config.readOnly) {
      const f = await finishOwed(
        config.reportsDir,
        { baseUrl: config.baseUrl!, apiKey: config.apiKey!, timeoutMs: config.requestTimeoutMs },
        relative(ROOT, config.manifestPath),
      );
      if (f) console.error(`${NAME}: ${finishedLine(f)}`);
      if (f?.left.length) return 3;
    }
    const { check, reason, lines } = await runManifestCheck(config, {
      baseUrl: env.CONSOLE_BASE_URL!,
      apiKey: env.CONSOLE_API_KEY!,
      reference: Boolean(server),
    });
    for (const line of lines) console.log(line);
    if (check) {
      mkdirSync(config.reportsDir, { recursive: true });
      const file = join(config.reportsDir, 'target-check.json');
      writeFileSync(file, `${JSON.stringify(check, null, 2)}\n`);
      console.log(`${NAME}: ${relative(ROOT, file).startsWith('..') ? file : relative(ROOT, file)} written`);
    }
    if (reason) {
      console.error(`${NAME}: ${reason}`);
      return 3;
    }
    return 0;
  } finally {
    await server?.stop();
  }
});
