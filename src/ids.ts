import { randomBytes, randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Base62 text of `length` characters from a byte source, without modulo bias (bytes ≥ 248 are skipped). */
function base62(length: number, nextByte: () => number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/** Random base62 text of the given length. Fresh bytes for each call (secrets use it). */
export function randomBase62(length: number): string {
  let bytes = randomBytes(length * 2);
  let i = 0;
  return base62(length, () => {
    if (i === bytes.length) {
      bytes = randomBytes(length * 2);
      i = 0;
    }
    return bytes[i++]!;
  });
}

/**
 * Random bytes for identifiers, drawn from a pool refilled 4 KiB at a time: one system call per
 * ~300 identifiers instead of one per identifier (a delivery burst creates thousands; the call
 * was ~3 % of the producer's and dispatcher's thread). Each byte is used once. Identifiers are
 * not secrets; secrets go through randomBase62.
 */
const idPool = Buffer.alloc(4096);
let idPoolUsed = idPool.length;

function idPoolByte(): number {
  if (idPoolUsed === idPool.length) {
    randomFillSync(idPool);
    idPoolUsed = 0;
  }
  return idPool[idPoolUsed++]!;
}

/**
 * Opaque, roughly time-ordered identifier: prefix, 10 base36 chars of milliseconds, 12 random.
 * Time order keeps B-tree inserts local; the random tail makes it unique.
 */
export function newId(prefix: string, at: Date = new Date()): string {
  return `${prefix}_${at.getTime().toString(36).padStart(10, '0')}${base62(12, idPoolByte)}`;
}
