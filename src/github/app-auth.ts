import { createAppAuth } from '@octokit/auth-app';
import { request } from '@octokit/request';

/**
 * A GitHub App's sign-in, through GitHub's own SDK (@octokit/auth-app): a JWT signed with the
 * App's private key (RS256, ten minutes) is exchanged for an installation token
 * (`POST /app/installations/{id}/access_tokens`), which expires after an hour. The SDK keeps each
 * token and makes a new one before it expires; `token(true)` makes a new one at once (GitHub
 * refused the one in hand: revoked, or the installation's permissions changed).
 */

export interface GitHubAppCredentials {
  appId: number;
  installationId: number;
  /** The App's private key (PEM), as GitHub gave it. */
  privateKey: string;
}

export interface GitHubAppTokens {
  /** An installation token, made or kept by the SDK; `refresh` makes a new one. */
  token(refresh?: boolean): Promise<string>;
  /** The App's bot user, `<app slug>[bot]`: who its comments are written by (GET /app). */
  botLogin(): Promise<string>;
}

export function gitHubAppTokens(apiUrl: string, app: GitHubAppCredentials, fetchImpl?: typeof fetch): GitHubAppTokens {
  const baseUrl = apiUrl.replace(/\/+$/, '');
  const req = request.defaults({ baseUrl, headers: { 'user-agent': 'cairn' }, ...(fetchImpl ? { request: { fetch: fetchImpl } } : {}) });
  const auth = createAppAuth({ appId: app.appId, privateKey: app.privateKey, installationId: app.installationId, request: req });
  return {
    async token(refresh = false) {
      return (await auth({ type: 'installation', refresh })).token;
    },
    async botLogin() {
      const { token } = await auth({ type: 'app' });
      const answer = await req('GET /app', { headers: { authorization: `bearer ${token}` } });
      return `${String((answer.data as { slug?: unknown }).slug)}[bot]`;
    },
  };
}
