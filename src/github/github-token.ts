import type { InstallKey } from '../shared/secrets/install-key.js';
import { openSecret, sealSecret } from '../shared/secrets/sealed.js';
import { CairnError } from '../shared/errors.js';
import type { StoredHook } from '../store/schemas/hook.js';

/**
 * A GitHub hook's API token (a fine-grained personal access token or an installation token),
 * sealed with the install key for a context naming the hook's id, like its secret
 * (hooks/hook-secret.ts): never answered over HTTP, logged, or written in plain text.
 */

const contextOf = (hookId: string) => `github-token:${hookId}`;

export function sealGitHubToken(key: InstallKey, hookId: string, token: string): string {
  return sealSecret(key, token, contextOf(hookId));
}

/** Throws SECRET_UNREADABLE when the install key changed since the hook was made. */
export function openGitHubToken(key: InstallKey, hook: StoredHook): string {
  if (!hook.sealed_github_token) throw new CairnError('VALIDATION_FAILED', `Webhook '${hook.name}' is not a GitHub hook: it has no GitHub token`);
  return openSecret(key, hook.sealed_github_token, contextOf(hook.id));
}
