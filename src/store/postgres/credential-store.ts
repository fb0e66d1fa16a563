import type { CredentialStore } from '../credentials.js';
import { storedCredentialSchema, type StoredCredential } from '../schemas/credential.js';
import type { PgSession, Query } from './session.js';

const toCredential = (row: unknown): StoredCredential => storedCredentialSchema.parse(row);

async function one(q: Query, userId: string, vendor: string): Promise<StoredCredential | undefined> {
  const [row] = await q('SELECT * FROM provider_credentials WHERE user_id = $1 AND vendor = $2', [userId, vendor]);
  return row === undefined ? undefined : toCredential(row);
}

/** CredentialStore over the session's pool: sealed values only, one per user and vendor. */
export function pgCredentialStore(session: PgSession): CredentialStore {
  return {
    putCredential: (c) =>
      session.write('connect a credential', async (q) => {
        await q(
          `INSERT INTO provider_credentials (user_id, vendor, kind, label, sealed_secret, sealed_refresh, expires_at, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
           ON CONFLICT (user_id, vendor) DO UPDATE SET kind = excluded.kind, label = excluded.label,
             sealed_secret = excluded.sealed_secret, sealed_refresh = excluded.sealed_refresh,
             expires_at = excluded.expires_at, updated_at = excluded.updated_at`,
          [c.user_id, c.vendor, c.kind, c.label, c.sealed_secret, c.sealed_refresh, c.expires_at, session.now()],
        );
        return (await one(q, c.user_id, c.vendor))!;
      }),
    replaceCredentialIf: (previous, c) =>
      session.write('refresh a credential', async (q) =>
        (
          await q(
            `UPDATE provider_credentials SET kind = $1, label = $2, sealed_secret = $3, sealed_refresh = $4, expires_at = $5, updated_at = $6
             WHERE user_id = $7 AND vendor = $8 AND sealed_secret = $9 RETURNING user_id`,
            [c.kind, c.label, c.sealed_secret, c.sealed_refresh, c.expires_at, session.now(), c.user_id, c.vendor, previous],
          )
        ).length === 1,
      ),
    getCredential: (userId, vendor) => session.read('read a credential', (q) => one(q, userId, vendor)),
    listCredentials: (userId) =>
      session.read('list credentials', async (q) => (await q('SELECT * FROM provider_credentials WHERE user_id = $1 ORDER BY vendor', [userId])).map(toCredential)),
    deleteCredential: (userId, vendor) =>
      session.write('disconnect a credential', async (q) =>
        (await q('DELETE FROM provider_credentials WHERE user_id = $1 AND vendor = $2 RETURNING user_id', [userId, vendor])).length > 0,
      ),
  };
}
