import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM sealing of secrets at rest: a copy of the database alone reveals no credential. Sealed text:
 *   v1.<keyId>.<iv b64url>.<tag b64url>.<ciphertext b64url>
 * The key id (first 8 hex chars of SHA-256 of the key) lets a new master key be introduced
 * while old rows still open with the previous one.
 */
export class Sealer {
  private readonly keys = new Map<string, Buffer>();
  private readonly currentId: string;

  /** @param masterKey 32 bytes; older keys may follow for reading rows sealed before a rotation. */
  constructor(masterKey: Buffer, ...previousKeys: Buffer[]) {
    for (const key of [masterKey, ...previousKeys]) {
      if (key.length !== 32) throw new Error('master key must be 32 bytes');
      this.keys.set(keyId(key), key);
    }
    this.currentId = keyId(masterKey);
  }

  seal(plain: string): string {
    const key = this.keys.get(this.currentId)!;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(this.currentId));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', this.currentId, b64(iv), b64(cipher.getAuthTag()), b64(data)].join('.');
  }

  open(sealed: string): string {
    const [version, id, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !id || iv === undefined || tag === undefined || data === undefined) {
      throw new Error('sealed value is malformed');
    }
    const key = this.keys.get(id);
    if (!key) throw new Error('sealed with an unknown master key');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(id));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }

  sealJson(value: unknown): string {
    return this.seal(JSON.stringify(value));
  }

  openJson<T>(sealed: string): T {
    return JSON.parse(this.open(sealed)) as T;
  }
}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

function b64(buf: Buffer): string {
  return buf.toString('base64url');
}
