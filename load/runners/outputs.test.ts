// Each runner writes files of its own, and their CSV rows end up in the one file the caller asked for.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { combineCsv, runnerFile, runnerK6Out } from './outputs.ts';

const dir = mkdtempSync(join(tmpdir(), 'runner-outputs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test("a runner's file outputs get its number; remote outputs are shared", () => {
  assert.equal(runnerFile('/r/paging.requests.csv.gz', 2), '/r/paging.requests.runner-2.csv.gz');
  assert.equal(runnerFile('/r/rows.csv', 3), '/r/rows.runner-3.csv');
  assert.equal(runnerFile('/r/rows', 1), '/r/rows.runner-1');
  assert.equal(
    runnerK6Out('csv=/t/a.csv.gz,json=/t/b.json, experimental-prometheus-rw', 2),
    'csv=/t/a.runner-2.csv.gz,json=/t/b.runner-2.json,experimental-prometheus-rw',
  );
  assert.equal(runnerK6Out('csv=fileName=/t/a.csv', 1), 'csv=fileName=/t/a.runner-1.csv');
  assert.equal(runnerK6Out('', 1), '');
});

test('the CSV rows of the runners go into one file, the header once, gzipped or not; a missing part is skipped', async () => {
  const header = 'metric_name,timestamp,metric_value';
  writeFileSync(join(dir, 'a.csv.gz'), gzipSync(`${header}\nhttp_req_duration,1,2\nhttp_reqs,1,1\n`));
  writeFileSync(join(dir, 'b.csv'), `${header}\nhttp_req_duration,2,3\n`);
  const rows = await combineCsv([join(dir, 'a.csv.gz'), join(dir, 'missing.csv'), join(dir, 'b.csv')], join(dir, 'all.csv.gz'));
  assert.equal(rows, 3);
  assert.equal(gunzipSync(readFileSync(join(dir, 'all.csv.gz'))).toString(), `${header}\nhttp_req_duration,1,2\nhttp_reqs,1,1\nhttp_req_duration,2,3\n`);
  await combineCsv([join(dir, 'b.csv')], join(dir, 'plain.csv'));
  assert.equal(readFileSync(join(dir, 'plain.csv'), 'utf8'), `${header}\nhttp_req_duration,2,3\n`);
});
