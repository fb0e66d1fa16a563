import type { InstallKey } from '../shared/secrets/install-key.js';
import type { StoredHook } from '../store/schemas/hook.js';
import { gitHubAppTokens, type GitHubAppTokens } from './app-auth.js';
import { gitHubClient, type GitHubClient } from './github-client.js';
import { openGitHubAccess } from './github-token.js';

/**
 * The GitHub client of a GitHub hook, signed in with its token or as its App. An App's tokens are
 * kept per hook and sealed key (a process makes one installation token an hour per hook, not one
 * per delivery); a replaced key starts afresh.
 */

const appTokens = new Map<string, GitHubAppTokens>();

export function gitHubClientOfHook(installKey: InstallKey, hook: StoredHook & { github: NonNullable<StoredHook['github']> }, opts: { fetch?: typeof fetch } = {}): GitHubClient {
  const access = openGitHubAccess(installKey, hook);
  const apiUrl = hook.github.api_url;
  if ('token' in access) return gitHubClient({ apiUrl, token: access.token, ...opts });
  const key = `${hook.id}\n${hook.sealed_github_token}`;
  let tokens = appTokens.get(key);
  if (!tokens) {
    tokens = gitHubAppTokens(apiUrl, access.app, opts.fetch);
    appTokens.set(key, tokens);
  }
  const made = tokens;
  return gitHubClient({ apiUrl, token: (refresh) => made.token(refresh), login: () => made.botLogin(), ...opts });
}
