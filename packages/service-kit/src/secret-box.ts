// AES-256-GCM envelope for secrets at rest (issuer passwords, PINs, .p12 files, private signing keys).
// Each sealed value names the key that sealed it, so keys rotate: seal with the newest, open with any.
// An optional context string is bound as associated data so a ciphertext cannot be moved to another row.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
/**
 * GCM's full tag. Node accepts shorter tags (down to 4 bytes) unless told the length, and a truncated tag
 * that is a prefix of the real one still authenticates: someone able to write a sealed value could then forge
 * one with ~2^32 tries instead of 2^128. Sealing always writes 16 bytes; opening insists on them.
 */
const TAG_LENGTH = 16;

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

export interface SecretKey {
  id: string;
  key: Buffer;
}

export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  readonly currentKeyId: string;

  constructor(keys: SecretKey[]) {
    if (keys.length === 0) throw new SecretBoxError('secret box needs at least one key');
    for (const k of keys) {
      if (k.key.length !== 32) throw new SecretBoxError(`secret key "${k.id}" must be 32 bytes`);
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(k.id))
        throw new SecretBoxError(`secret key id "${k.id}" is not valid`);
    }
    this.keys = new Map(keys.map((k) => [k.id, k.key]));
    this.currentKeyId = keys[0]!.id;
  }

  /**
   * Parses `SECRETS_KEY`: comma-separated `id:base64key` entries, newest first (a bare base64 key gets id
   * `k1`). Keys are 32 random bytes, e.g. `openssl rand -base64 32`.
   */
  static fromSetting(setting: string): SecretBox {
    const keys = setting
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((entry, i) => {
        const idx = entry.indexOf(':');
        const id = idx > 0 ? entry.slice(0, idx) : `k${i + 1}`;
        const key = Buffer.from(idx > 0 ? entry.slice(idx + 1) : entry, 'base64');
        return { id, key };
      });
    return new SecretBox(keys);
  }

  static generateSetting(id = 'k1'): string {
    return `${id}:${randomBytes(32).toString('base64')}`;
  }

  seal(plaintext: Buffer | string, context = ''): string {
    const key = this.keys.get(this.currentKeyId)!;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_LENGTH });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ct = Buffer.concat([
      cipher.update(typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext),
      cipher.final(),
    ]);
    const tag = cipher.getAuthTag();
    return [
      VERSION,
      this.currentKeyId,
      iv.toString('base64'),
      tag.toString('base64'),
      ct.toString('base64'),
    ].join('.');
  }

  open(sealed: string, context = ''): Buffer {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretBoxError('sealed value is malformed');
    const [, keyId, ivB64, tagB64, ctB64] = parts as [string, string, string, string, string];
    const key = this.keys.get(keyId);
    if (!key) throw new SecretBoxError(`sealed with unknown key id "${keyId}"`);
    const tag = Buffer.from(tagB64, 'base64');
    if (tag.length !== TAG_LENGTH) throw new SecretBoxError('sealed value failed authentication');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivB64, 'base64'), {
        authTagLength: TAG_LENGTH,
      });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(ctB64, 'base64')), decipher.final()]);
    } catch {
      throw new SecretBoxError('sealed value failed authentication');
    }
  }

  openText(sealed: string, context = ''): string {
    return this.open(sealed, context).toString('utf8');
  }

  /** The key id a sealed value names (stored beside the ciphertext for rotation reports). */
  static keyIdOf(sealed: string): string | undefined {
    return sealed.split('.')[1];
  }

  /** Whether the value should be re-sealed under the current key. */
  needsReseal(sealed: string): boolean {
    return SecretBox.keyIdOf(sealed) !== this.currentKeyId;
  }
}
