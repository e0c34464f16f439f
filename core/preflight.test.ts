// The preflight tells a target that cannot be tested (exit 3) from the Console API, even one that
// breaks the contract (exit 1 is the suite's to give): real HTTP servers on port 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { preflight } from './preflight.ts';

async function answering(status: number, type: string, body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const cases: { what: string; status: number; type: string; body: string; unfit: RegExp | undefined }[] = [
  { what: '200 with the envelope', status: 200, type: 'application/json', body: '{"data":[]}', unfit: undefined },
  {
    what: '202 with the envelope (a status clause broken, still the Console API)',
    status: 202,
    type: 'application/json',
    body: '{"data":[]}',
    unfit: undefined,
  },
  { what: 'a login page', status: 200, type: 'text/html', body: '<html>login</html>', unfit: /text\/html, not the Console API/ },
  { what: '200 JSON without the envelope', status: 200, type: 'application/json', body: '{"items":[]}', unfit: /without the Console envelope/ },
  { what: '500 JSON with an envelope', status: 500, type: 'application/json', body: '{"data":[]}', unfit: /HTTP 500 without the Console envelope|not working/ },
  { what: 'the key refused', status: 401, type: 'application/json', body: '{"message":"no"}', unfit: /rejected the key/ },
];

for (const c of cases) {
  test(`preflight: ${c.what}`, async () => {
    const { url, server } = await answering(c.status, c.type, c.body);
    try {
      const unfit = await preflight(url, 'k', 5000);
      if (c.unfit === undefined) assert.equal(unfit, undefined);
      else assert.match(unfit ?? '', c.unfit);
    } finally {
      server.close();
    }
  });
}

test('a timeout with a fraction of a millisecond (what is left of a deadline) is taken, not thrown', async () => {
  const { url, server } = await answering(200, 'application/json', '{"data":[]}');
  try {
    assert.equal(await preflight(url, 'k', 14485.6), undefined);
  } finally {
    server.close();
  }
});
