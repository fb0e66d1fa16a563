import type Database from 'better-sqlite3';
import type { CredentialWrite } from '../credentials.js';
import { storedCredentialSchema, type StoredCredential } from '../schemas/credential.js';

export function credentialStatements(db: Database.Database) {
  const upsert = db.prepare(
    `INSERT INTO provider_credentials (user_id, vendor, kind, label, sealed_secret, sealed_refresh, expires_at, created_at, updated_at)
     VALUES (@user_id, @vendor, @kind, @label, @sealed_secret, @sealed_refresh, @expires_at, @now, @now)
     ON CONFLICT (user_id, vendor) DO UPDATE SET kind = excluded.kind, label = excluded.label,
       sealed_secret = excluded.sealed_secret, sealed_refresh = excluded.sealed_refresh,
       expires_at = excluded.expires_at, updated_at = excluded.updated_at`,
  );
  const replaceIf = db.prepare(
    `UPDATE provider_credentials SET kind = @kind, label = @label, sealed_secret = @sealed_secret,
       sealed_refresh = @sealed_refresh, expires_at = @expires_at, updated_at = @now
     WHERE user_id = @user_id AND vendor = @vendor AND sealed_secret = @previous`,
  );
  const one = db.prepare('SELECT * FROM provider_credentials WHERE user_id = ? AND vendor = ?');
  const ofUser = db.prepare('SELECT * FROM provider_credentials WHERE user_id = ? ORDER BY vendor');
  const remove = db.prepare('DELETE FROM provider_credentials WHERE user_id = ? AND vendor = ?');
  const toCredential = (row: unknown): StoredCredential => storedCredentialSchema.parse(row);
  return {
    put(credential: CredentialWrite, now: string): StoredCredential {
      upsert.run({ ...credential, now });
      return toCredential(one.get(credential.user_id, credential.vendor));
    },
    replaceIf(previous: string, credential: CredentialWrite, now: string): boolean {
      return replaceIf.run({ ...credential, previous, now }).changes === 1;
    },
    get(userId: string, vendor: string): StoredCredential | undefined {
      const row = one.get(userId, vendor);
      return row === undefined ? undefined : toCredential(row);
    },
    list(userId: string): StoredCredential[] {
      return ofUser.all(userId).map(toCredential);
    },
    remove(userId: string, vendor: string): boolean {
      return remove.run(userId, vendor).changes > 0;
    },
  };
}
