// Reads the entries of a ZIP archive (stored and deflated; no ZIP64, no encryption), enough to look
// inside what Playwright writes compressed: the HTML report's embedded data and blob reports. A scan
// for the key that cannot read them would report clean over a key it never saw.
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  data?: Buffer;
  problem?: string;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export const isZip = (bytes: Buffer) => bytes.length >= 4 && bytes.readUInt32LE(0) === LOCAL;

/** The entries of `zip`, each with its bytes, or with the reason they cannot be read. Throws when `zip` is no readable archive. */
export function zipEntries(zip: Buffer): ZipEntry[] {
  // The end-of-central-directory record is in the last 22 + 65535 (comment) bytes.
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL) throw new Error('broken central directory');
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    at += 46 + nameLength + extraLength + commentLength;
    if (size === 0xffffffff || local === 0xffffffff) {
      entries.push({ name, problem: 'ZIP64 entry' });
      continue;
    }
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL) {
      entries.push({ name, problem: 'no local header' });
      continue;
    }
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + size);
    try {
      if (method === 0) entries.push({ name, data: raw });
      else if (method === 8) entries.push({ name, data: inflateRawSync(raw) });
      else entries.push({ name, problem: `compression method ${method}` });
    } catch (err) {
      entries.push({ name, problem: (err as Error).message });
    }
  }
  return entries;
}

/** Base64 text of ZIP archives embedded in a text (a data: URL in an HTML page): base64 of "PK\x03\x04" starts "UEsDB". */
export function embeddedZips(text: string): Buffer[] {
  const out: Buffer[] = [];
  for (const m of text.matchAll(/UEsDB[A-Za-z0-9+/]+={0,2}/g)) out.push(Buffer.from(m[0], 'base64'));
  return out;
}
