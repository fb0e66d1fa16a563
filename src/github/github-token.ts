import type { InstallKey } from '../shared/secrets/install-key.js';
import { openSecret, sealSecret } from '../shared/secrets/sealed.js';
import { CairnError } from '../shared/errors.js';
import type { StoredHook } from '../store/schemas/hook.js';
import type { GitHubAppCredentials } from './app-auth.js';

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

const appKeyContextOf = (hookId: string) => `github-app-key:${hookId}`;

/** A GitHub App hook's private key, sealed in the place of a token, for a context of its own. */
export function sealGitHubAppKey(key: InstallKey, hookId: string, privateKey: string): string {
  return sealSecret(key, privateKey, appKeyContextOf(hookId));
}

/** How a GitHub hook signs in: its token, or its App (the App's ids and its private key). */
export type GitHubAccess = { token: string } | { app: GitHubAppCredentials };

/** Throws SECRET_UNREADABLE when the install key changed since the hook was made. */
export function openGitHubAccess(key: InstallKey, hook: StoredHook): GitHubAccess {
  const app = hook.github?.app;
  if (!app) return { token: openGitHubToken(key, hook) };
  if (!hook.sealed_github_token) throw new CairnError('VALIDATION_FAILED', `Webhook '${hook.name}' signs in as a GitHub App but has no private key`);
  return { app: { appId: app.app_id, installationId: app.installation_id, privateKey: openSecret(key, hook.sealed_github_token, appKeyContextOf(hook.id)) } };
}
