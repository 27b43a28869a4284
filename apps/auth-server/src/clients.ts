// Clients (tenants) that log in with base + password. Passwords are stored only as argon2id PHC strings.
import type { ClientView } from '@cr/contracts';
import { AppError, type Db } from '@cr/service-kit';

export interface ClientRecord {
  base: string;
  passwordHash: string;
  disabled: boolean;
  createdAt: number;
  /** Tokens issued before this (Unix seconds) are revoked; a new token's iat is never earlier. */
  notBefore: number | undefined;
}

interface ClientRow {
  base: string;
  password_hash: string;
  disabled: boolean;
  created_at: string;
  not_before?: string | null;
}

export class ClientStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  async find(base: string): Promise<ClientRecord | undefined> {
    const { rows } = await this.db.query<ClientRow>(
      `SELECT c.base, c.password_hash, c.disabled, c.created_at,
              (SELECT r.not_before FROM revoked_subjects r WHERE r.subject = c.base) AS not_before
       FROM clients c WHERE c.base = $1`,
      [base],
    );
    const r = rows[0];
    return r
      ? {
          base: r.base,
          passwordHash: r.password_hash,
          disabled: r.disabled,
          createdAt: Number(r.created_at),
          notBefore: r.not_before == null ? undefined : Number(r.not_before),
        }
      : undefined;
  }

  /** Inserts a client; 409 when the base is taken. */
  async create(base: string, passwordHash: string): Promise<ClientView> {
    const now = this.now();
    const { rows } = await this.db.query<{ base: string }>(
      `INSERT INTO clients (base, password_hash, disabled, created_at, updated_at) VALUES ($1, $2, false, $3, $3)
       ON CONFLICT (base) DO NOTHING RETURNING base`,
      [base, passwordHash, now],
    );
    if (rows.length === 0) throw new AppError('conflict', `base: client "${base}" already exists`);
    return { base, disabled: false, createdAt: new Date(now).toISOString() };
  }

  async updatePasswordHash(base: string, oldHash: string, newHash: string): Promise<void> {
    // Only replaces the hash that was verified, so a concurrent password change is never overwritten.
    await this.db.query(
      'UPDATE clients SET password_hash = $3, updated_at = $4 WHERE base = $1 AND password_hash = $2',
      [base, oldHash, newHash, this.now()],
    );
  }

  /** Sets a new password hash (admin); 404 when the client does not exist. */
  async setPasswordHash(base: string, passwordHash: string): Promise<void> {
    const r = await this.db.query('UPDATE clients SET password_hash = $2, updated_at = $3 WHERE base = $1', [
      base,
      passwordHash,
      this.now(),
    ]);
    if (r.rowCount === 0) throw new AppError('not_found', `client "${base}" does not exist`);
  }

  async view(base: string): Promise<ClientView> {
    const c = await this.find(base);
    if (!c) throw new AppError('not_found', `client "${base}" does not exist`);
    return { base: c.base, disabled: c.disabled, createdAt: new Date(c.createdAt).toISOString() };
  }

  async setDisabled(base: string, disabled: boolean): Promise<ClientView> {
    const { rows } = await this.db.query<ClientRow>(
      'UPDATE clients SET disabled = $2, updated_at = $3 WHERE base = $1 RETURNING base, disabled, created_at',
      [base, disabled, this.now()],
    );
    const r = rows[0];
    if (!r) throw new AppError('not_found', `client "${base}" does not exist`);
    return { base: r.base, disabled: r.disabled, createdAt: new Date(Number(r.created_at)).toISOString() };
  }

  async delete(base: string): Promise<void> {
    const r = await this.db.query('DELETE FROM clients WHERE base = $1', [base]);
    if (r.rowCount === 0) throw new AppError('not_found', `client "${base}" does not exist`);
  }
}
