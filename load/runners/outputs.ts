// The files k6 writes, one set per runner: N processes given one K6_OUT would write one CSV file
// over each other. Each runner's file outputs get its number before the extension; afterwards the
// CSV rows of all runners are put together in the file the caller asked for (verify draws its
// throughput chart from it), as if one k6 had written them.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { createGunzip, createGzip } from 'node:zlib';

/** `requests.csv.gz` -> `requests.runner-2.csv.gz`; a name without an extension gets the suffix at its end. */
export function runnerFile(file: string, index: number): string {
  const m = /^(.*?[^/])((?:\.[A-Za-z0-9]+){1,2})$/.exec(file);
  return m ? `${m[1]}.runner-${index}${m[2]}` : `${file}.runner-${index}`;
}

/**
 * K6_OUT for runner `index`: every output that writes a file (`csv=PATH`, `csv=fileName=PATH`,
 * `json=PATH`) writes the runner's own; the others (a remote write, a metrics service) are shared,
 * and the runners' `instance_id` tag tells their samples apart there.
 */
export function runnerK6Out(k6Out: string, index: number): string {
  return k6Out
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
    .map((o) => {
      const m = /^(csv=(?:fileName=)?|json=)(.+)$/.exec(o);
      return m ? `${m[1]}${runnerFile(m[2], index)}` : o;
    })
    .join(',');
}

/** The rows of several k6 CSV outputs (gzipped when named .gz) in one, the header once. Missing parts are skipped; returns the rows written. */
export async function combineCsv(parts: string[], out: string): Promise<number> {
  const raw = createWriteStream(out);
  const sink = out.endsWith('.gz') ? createGzip() : undefined;
  sink?.pipe(raw);
  const write = async (line: string) => {
    const target = sink ?? raw;
    if (!target.write(`${line}\n`)) await once(target, 'drain');
  };
  let header: string | undefined;
  let rows = 0;
  for (const part of parts) {
    let input: NodeJS.ReadableStream;
    try {
      const file = createReadStream(part);
      await once(file, 'open');
      input = part.endsWith('.gz') ? file.pipe(createGunzip()) : file;
    } catch {
      continue;
    }
    let first = true;
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      if (!line) continue;
      if (first) {
        first = false;
        if (header === undefined) {
          header = line;
          await write(line);
        }
        continue;
      }
      await write(line);
      rows++;
    }
  }
  (sink ?? raw).end();
  await once(raw, 'close');
  return rows;
}
