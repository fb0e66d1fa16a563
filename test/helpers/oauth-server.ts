import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local OAuth 2.0 authorization server that implements the flows Cairn's subscription logins
 * use, for real, over HTTP:
 *
 * - `GET /authorize`: the authorization code grant with PKCE (RFC 7636, S256 only). The user's
 *   consent is implied: it redirects to `redirect_uri` with `code` and `state`.
 * - `POST /device/code` and the device-code grant (RFC 8628): `authorization_pending` until the
 *   test approves the user code, `slow_down` (and +5 s to the interval) for a poll sooner than
 *   the interval the server enforces, `expired_token` after the device code's life.
 * - `POST /token`: the code exchange (verifier checked against the challenge, code single-use,
 *   client and redirect URI matched), the device grant, and `refresh_token` (rotating).
 *
 * Token bodies are read as a form or as JSON. Time is the server's `now`, which tests share with
 * the API's clock to step through intervals and expiries without waiting.
 */

export interface OAuthServerOptions {
  clientId?: string;
  /** Seconds an access token lives (`expires_in`). */
  accessTokenTtl?: number;
  /** Device codes: the interval advertised, the interval enforced (default: the same), and their life. */
  deviceInterval?: number;
  enforcedInterval?: number;
  deviceTtl?: number;
  /** The device code's life as advertised (default: deviceTtl). */
  advertisedDeviceTtl?: number;
  now?: () => number;
}

export interface TokenRequest {
  grant_type: string;
  contentType: string;
  params: Record<string, string>;
}

export interface OAuthServer {
  url: string;
  /** Every token request, in order. */
  tokenRequests: TokenRequest[];
  /** Access tokens issued, in order. */
  issued: string[];
  approveDevice(userCode: string): void;
  /** Refresh tokens stop working (the user revoked the login). */
  revokeRefreshTokens(): void;
  close(): Promise<void>;
}

interface PendingCode { challenge: string; clientId: string; redirectUri: string; used: boolean }
interface DeviceGrant { deviceCode: string; userCode: string; approved: boolean; expiresAt: number; interval: number; lastPoll?: number; done: boolean }

export async function startOAuthServer(opts: OAuthServerOptions = {}): Promise<OAuthServer> {
  const clientId = opts.clientId ?? 'cairn-test-client';
  const now = opts.now ?? Date.now;
  const codes = new Map<string, PendingCode>();
  const devices = new Map<string, DeviceGrant>();
  const refreshTokens = new Set<string>();
  const tokenRequests: TokenRequest[] = [];
  const issued: string[] = [];
  const token = (prefix: string) => `${prefix}-${randomBytes(12).toString('hex')}`;

  const issue = () => {
    const access = token('access');
    const refresh = token('refresh');
    issued.push(access);
    refreshTokens.add(refresh);
    return { access_token: access, refresh_token: refresh, token_type: 'Bearer', expires_in: opts.accessTokenTtl ?? 3600 };
  };

  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const fail = (error: string, description?: string) => send(400, { error, ...(description ? { error_description: description } : {}) });
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/authorize') {
      const q = url.searchParams;
      if (q.get('response_type') !== 'code' || q.get('client_id') !== clientId) return fail('invalid_request', 'bad response_type or client_id');
      if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) return fail('invalid_request', 'PKCE S256 required');
      const redirect = q.get('redirect_uri');
      if (!redirect) return fail('invalid_request', 'redirect_uri required');
      const code = token('code');
      codes.set(code, { challenge: q.get('code_challenge')!, clientId, redirectUri: redirect, used: false });
      const target = new URL(redirect);
      target.searchParams.set('code', code);
      if (q.get('state')) target.searchParams.set('state', q.get('state')!);
      res.writeHead(302, { location: target.toString() });
      return res.end();
    }
    if (req.method !== 'POST') return send(404, { error: 'not_found' });
    const params = await readParams(req);
    if (url.pathname === '/device/code') {
      if (params.client_id !== clientId) return fail('invalid_client');
      const grant: DeviceGrant = {
        deviceCode: token('device'),
        userCode: `${randomBytes(2).toString('hex')}-${randomBytes(2).toString('hex')}`.toUpperCase(),
        approved: false,
        expiresAt: now() + (opts.deviceTtl ?? 900) * 1000,
        interval: opts.enforcedInterval ?? opts.deviceInterval ?? 5,
        done: false,
      };
      devices.set(grant.deviceCode, grant);
      return send(200, {
        device_code: grant.deviceCode,
        user_code: grant.userCode,
        verification_uri: `${baseUrl()}/device`,
        expires_in: opts.advertisedDeviceTtl ?? opts.deviceTtl ?? 900,
        interval: opts.deviceInterval ?? 5,
      });
    }
    if (url.pathname !== '/token') return send(404, { error: 'not_found' });
    tokenRequests.push({ grant_type: params.grant_type ?? '', contentType: String(req.headers['content-type']), params });
    if (params.client_id !== clientId) return fail('invalid_client');
    switch (params.grant_type) {
      case 'authorization_code': {
        const pending = codes.get(params.code ?? '');
        if (!pending || pending.used) return fail('invalid_grant', 'unknown or used code');
        pending.used = true;
        if (params.redirect_uri !== pending.redirectUri) return fail('invalid_grant', 'redirect_uri mismatch');
        const challenge = createHash('sha256').update(params.code_verifier ?? '').digest('base64url');
        if (challenge !== pending.challenge) return fail('invalid_grant', 'PKCE verification failed');
        return send(200, issue());
      }
      case 'urn:ietf:params:oauth:grant-type:device_code': {
        const grant = devices.get(params.device_code ?? '');
        if (!grant || grant.done) return fail('invalid_grant');
        const t = now();
        if (t >= grant.expiresAt) return fail('expired_token');
        if (grant.lastPoll !== undefined && t - grant.lastPoll < grant.interval * 1000) {
          grant.lastPoll = t;
          grant.interval += 5;
          return fail('slow_down');
        }
        grant.lastPoll = t;
        if (!grant.approved) return fail('authorization_pending');
        grant.done = true;
        return send(200, issue());
      }
      case 'refresh_token': {
        if (!refreshTokens.delete(params.refresh_token ?? '')) return fail('invalid_grant', 'refresh token revoked');
        return send(200, issue());
      }
      default:
        return fail('unsupported_grant_type');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: baseUrl(),
    tokenRequests,
    issued,
    approveDevice(userCode) {
      const grant = [...devices.values()].find((g) => g.userCode === userCode);
      if (!grant) throw new Error(`no device grant with user code ${userCode}`);
      grant.approved = true;
    },
    revokeRefreshTokens: () => refreshTokens.clear(),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function readParams(req: IncomingMessage): Promise<Record<string, string>> {
  let raw = '';
  for await (const chunk of req) raw += (chunk as Buffer).toString('utf8');
  if (String(req.headers['content-type']).startsWith('application/json')) {
    const parsed = JSON.parse(raw || '{}') as Record<string, unknown>;
    return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
  }
  return Object.fromEntries(new URLSearchParams(raw));
}

/** The `oauth:` block of `$CAIRN_HOME/config.yaml` that points every subscription vendor at this server. */
export function oauthConfigYaml(server: OAuthServer, clientId = 'cairn-test-client'): string {
  const manual = (vendor: string) =>
    `  ${vendor}:\n    clientId: ${clientId}\n    authorizeUrl: ${server.url}/authorize\n    tokenUrl: ${server.url}/token\n    redirectUri: ${server.url}/callback\n`;
  return (
    'oauth:\n' +
    manual('anthropic') +
    manual('openai') +
    `  github-copilot:\n    clientId: ${clientId}\n    deviceCodeUrl: ${server.url}/device/code\n    tokenUrl: ${server.url}/token\n`
  );
}
