import type { StoredCredential } from './schemas/credential.js';

export type { CredentialKind, StoredCredential } from './schemas/credential.js';

/** What a connect or a token refresh writes; the store stamps the times. */
export type CredentialWrite = Omit<StoredCredential, 'created_at' | 'updated_at'>;

/**
 * Per-user provider credentials (one per user and vendor). The store only ever sees sealed
 * values; sealing and opening are `credentials/credential-seal.ts`.
 */
export interface CredentialStore {
  /** Connects (or reconnects, replacing the previous secret) the user's credential for the vendor. */
  putCredential(credential: CredentialWrite): Promise<StoredCredential>;
  /**
   * A token refresh: replaces the credential only while it still holds `previousSealed` (a
   * concurrent refresh or a reconnect won), answering whether it did.
   */
  replaceCredentialIf(previousSealed: string, credential: CredentialWrite): Promise<boolean>;
  getCredential(userId: string, vendor: string): Promise<StoredCredential | undefined>;
  /** The user's credentials, by vendor. */
  listCredentials(userId: string): Promise<StoredCredential[]>;
  /** Disconnects; true when there was one. */
  deleteCredential(userId: string, vendor: string): Promise<boolean>;
}
