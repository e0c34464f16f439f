// A warm process that starts reference servers on request, one after another, for a caller that
// starts many (the self-test: one per fault). Each server is build() anew, as `serve` does, with its
// own in-memory database, a copy of the seeded data (seeded once per size: the large lists' 50,000
// experiments take over a second), listening on a free loopback port; what is saved is the start of a
// process (Node, tsx, Fastify, SQLite, the contract's schemas) and the seeding, paid once instead of per server.
// Not a command: core/reference-host.ts starts it and speaks to it, one JSON object a line:
//   in:  {"start": {"apiKey", "faults", "variants", "scale"}}   out: {"url": "http://127.0.0.1:PORT"} or {"error": "..."}
//   in:  {"stop": true}                                          out: {"stopped": true}
// One server at a time; it stops when its standard input closes (its launcher gone, however it went).
import type { FastifyInstance } from 'fastify';
import { createInterface } from 'node:readline';
import { build } from './app.ts';

interface Start {
  apiKey: string;
  faults?: string[];
  variants?: string[];
  scale?: number;
}

let app: FastifyInstance | undefined;
const reply = (message: object): void => {
  process.stdout.write(`${JSON.stringify(message)}\n`);
};

async function start(opts: Start): Promise<void> {
  if (app) throw new Error('a server is running: stop it first');
  const next = build({ apiKey: opts.apiKey, db: ':memory:', seed: 1, scale: opts.scale, faults: opts.faults, variants: opts.variants, seedCopies: true });
  await next.listen({ port: 0, host: '127.0.0.1' });
  app = next;
  const address = app.server.address();
  reply({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
}

async function stop(): Promise<void> {
  await app?.close();
  app = undefined;
  reply({ stopped: true });
}

// Requests are handled in order: a stop always finds the server its start made.
let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line) as { start?: Start; stop?: true };
  queue = queue.then(() => (message.start ? start(message.start) : stop())).catch((err: Error) => reply({ error: err.message }));
});
process.stdin.once('end', async () => {
  await queue;
  await app?.close();
  process.exit(0);
});
