// Clients (tenants) that log in with base + password. Passwords are stored only as argon2id PHC strings.
import type { ClientList, ClientView } from '@cr/contracts';
import { AppError, type Db, type Queryable } from '@cr/service-kit';

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

/**
 * The advisory-lock class of a client's base: its key is (this, hashtext(base)), in the two-int key space,
 * apart from the one-bigint keys of the signing keys (keys.ts) and the migrations.
 */
const BASE_LOCK_CLASS = 7_310_508;

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

  /**
   * Inserts a client; 409 when the base is taken, or was a deleted client's (its tenant data is still under
   * it) unless `reclaim`, which frees the deleted base in the same statement. A base that was never deleted
   * is simply created with `reclaim` too.
   */
  async create(base: string, passwordHash: string, options: CreateClientOptions = {}): Promise<ClientView> {
    const now = this.now();
    const { rows } = await this.withBaseLocked(base, (tx) =>
      tx.query<{ base: string }>(
        options.reclaim
          ? `WITH freed AS (DELETE FROM deleted_clients WHERE base = $1)
           INSERT INTO clients (base, password_hash, disabled, created_at, updated_at) VALUES ($1, $2, false, $3, $3)
           ON CONFLICT (base) DO NOTHING RETURNING base`
          : `INSERT INTO clients (base, password_hash, disabled, created_at, updated_at)
           SELECT $1, $2, false, $3, $3 WHERE NOT EXISTS (SELECT 1 FROM deleted_clients WHERE base = $1)
           ON CONFLICT (base) DO NOTHING RETURNING base`,
        [base, passwordHash, now],
      ),
    );
    if (rows.length === 0) {
      const { deletedAt } = await this.baseStatus(base);
      if (deletedAt !== undefined && !options.reclaim) throw deletedConflict(base, deletedAt);
      throw new AppError('conflict', `base: client "${base}" already exists`);
    }
    return { base, disabled: false, createdAt: new Date(now).toISOString() };
  }

  /** Whether a live client has `base` and when a deleted one had it, in one statement. */
  async baseStatus(base: string): Promise<BaseStatus> {
    const { rows } = await this.db.query<{ taken: boolean; deleted_at: string | null }>(
      `SELECT EXISTS (SELECT 1 FROM clients WHERE base = $1) AS taken,
              (SELECT deleted_at FROM deleted_clients WHERE base = $1) AS deleted_at`,
      [base],
    );
    const r = rows[0];
    return {
      taken: r?.taken === true,
      deletedAt: r?.deleted_at == null ? undefined : Number(r.deleted_at),
    };
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

  /**
   * One page of clients by base, after `after` (exclusive). Byte order ("C"), the same on every database, so
   * a page's last base is a cursor that neither skips nor repeats a client.
   */
  async list(after: string | undefined, limit: number): Promise<ClientList> {
    const { rows } = await this.db.query<ClientRow>(
      `SELECT base, disabled, created_at FROM clients WHERE base COLLATE "C" > $1
       ORDER BY base COLLATE "C" LIMIT $2`,
      [after ?? '', limit + 1],
    );
    const page = rows.slice(0, limit);
    return {
      clients: page.map((r) => ({
        base: r.base,
        disabled: r.disabled,
        createdAt: new Date(Number(r.created_at)).toISOString(),
      })),
      next: rows.length > limit ? page[page.length - 1]!.base : null,
    };
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

  /**
   * Deletes a client and reserves its base (deleted_clients) in one statement: there is no moment at which
   * the base is free while its tenant data is still there for whoever creates it next.
   */
  async delete(base: string): Promise<void> {
    const { rows } = await this.withBaseLocked(base, (tx) =>
      tx.query<{ base: string }>(
        `WITH gone AS (DELETE FROM clients WHERE base = $1 RETURNING base)
         INSERT INTO deleted_clients (base, deleted_at) SELECT base, $2 FROM gone
         ON CONFLICT (base) DO UPDATE SET deleted_at = EXCLUDED.deleted_at RETURNING base`,
        [base, this.now()],
      ),
    );
    if (rows.length === 0) throw new AppError('not_found', `client "${base}" does not exist`);
  }

  /**
   * Runs `write` once no other creation or deletion of `base` is under way. Each is one statement, yet alone
   * they could both hold: in READ COMMITTED a creation's `NOT EXISTS (deleted_clients)` reads the snapshot of
   * its start, while its `ON CONFLICT` waits for a deletion of the same base to commit and then finds the base
   * free, so the client was created live on a base its deletion had just reserved (race audit, 2026-12-07).
   * Taking turns on the base's lock, each statement starts after the other committed and sees what it wrote.
   */
  private withBaseLocked<T>(base: string, write: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [BASE_LOCK_CLASS, base]);
      return write(tx);
    });
  }
}

export interface BaseStatus {
  /** A live client has the base. */
  taken: boolean;
  /** When the client that had the base was deleted (Unix ms); undefined when none was. */
  deletedAt: number | undefined;
}

export interface CreateClientOptions {
  /** Create it even if the base was a deleted client's: the new client gets that base's tenant data. */
  reclaim?: boolean;
}

/** The 409 for a deleted client's base: says what is still under it and how to take it on purpose. */
export function deletedConflict(base: string, deletedAt: number): AppError {
  return new AppError(
    'conflict',
    `base: client "${base}" was deleted on ${new Date(deletedAt).toISOString()}; its tenant data remains under that base: issuers with their Hacienda credentials and .p12, documents, and the webhook endpoint and e-mail settings, which would then receive the events and mail of the new client. Create it with "reclaim": true only to give all of it to the new client`,
  );
}
