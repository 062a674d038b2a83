import { randomBytes, randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 text of the given length, without modulo bias. Fresh bytes for each call (secrets use it). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/**
 * Random bytes for identifiers, drawn from a pool refilled 4 KiB at a time: one system call per
 * ~300 identifiers instead of one per identifier (a delivery burst creates thousands; the call
 * was ~3 % of the producer's and dispatcher's thread). Each byte is used once. Identifiers are
 * not secrets; secrets go through randomBase62.
 */
const idPool = Buffer.alloc(4096);
let idPoolUsed = idPool.length;

function idTail(length: number): string {
  let out = '';
  while (out.length < length) {
    if (idPoolUsed === idPool.length) {
      randomFillSync(idPool);
      idPoolUsed = 0;
    }
    const byte = idPool[idPoolUsed++]!;
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/**
 * Opaque, roughly time-ordered identifier: prefix, 10 base36 chars of milliseconds, 12 random.
 * Time order keeps B-tree inserts local; the random tail makes it unique.
 */
export function newId(prefix: string, at: Date = new Date()): string {
  return `${prefix}_${at.getTime().toString(36).padStart(10, '0')}${idTail(12)}`;
}
