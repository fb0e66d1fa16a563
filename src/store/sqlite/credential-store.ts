import type { CredentialStore } from '../credentials.js';
import { credentialStatements } from './credentials-sql.js';
import type { SqliteSession } from './session.js';

/** CredentialStore over the session's connection. */
export function sqliteCredentialStore(session: SqliteSession): CredentialStore {
  const credentials = credentialStatements(session.db);
  return {
    putCredential: (credential) => session.write('connect a credential', () => credentials.put(credential, session.now())),
    replaceCredentialIf: (previous, credential) =>
      session.write('refresh a credential', () => credentials.replaceIf(previous, credential, session.now())),
    getCredential: (userId, vendor) => session.read('read a credential', () => credentials.get(userId, vendor)),
    listCredentials: (userId) => session.read('list credentials', () => credentials.list(userId)),
    deleteCredential: (userId, vendor) => session.write('disconnect a credential', () => credentials.remove(userId, vendor)),
  };
}
