import type { OpenCredential } from '../../../credentials/credential-seal.js';
import type { Run } from '../../../store/schemas/run.js';
import type { ProviderConnection } from '../../../worker/providers/provider-adapter.js';

/**
 * The user's own credential in an AI attempt's connection. It goes only into the provider
 * call's client or its CLI's environment (the adapters map `apiKey` / `authToken` to the
 * vendor's variable), never into a `bash` node, a file or a record; it wins over a key of the
 * install's config or environment.
 */

/**
 * Who a run belongs to: the user recorded on the run (`user_id`, from `X-Service-User` when the
 * run was requested), or null for a run without one (model resolution and credentials stay
 * install-wide).
 */
export function runUserOf(run: Pick<Run, 'user_id'>): string | null {
  return run.user_id !== null && run.user_id !== '' ? run.user_id : null;
}

export function withCredential(connection: ProviderConnection, credential: OpenCredential): ProviderConnection {
  const { apiKey: _key, authToken: _token, ...rest } = connection;
  // An Anthropic subscription token is a bearer token, not an x-api-key.
  if (credential.kind === 'oauth' && credential.vendor === 'anthropic') return { ...rest, authToken: credential.secret };
  return { ...rest, apiKey: credential.secret };
}
