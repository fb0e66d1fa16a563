import type { OAuthEndpoints } from './oauth-endpoints.js';

/**
 * The OAuth 2.0 calls Cairn makes as a client: the code exchange (RFC 6749 §4.1 with PKCE,
 * RFC 7636), the device authorization request and token poll (RFC 8628) and the refresh
 * (RFC 6749 §6). Errors name the server's `error` code and description, never a token.
 */

const TIMEOUT_MS = 15_000;
/** Longest text of the server's we repeat in an error. */
const MAX_DETAIL = 200;

export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  /** ms since the epoch; undefined when the server gave no `expires_in`. */
  expiresAt?: number;
}

export class OAuthCallError extends Error {
  constructor(
    message: string,
    /** The server's `error` code (`authorization_pending`, `invalid_grant` ...), when it sent one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

const clip = (text: string) => (text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text);

async function post(endpoints: OAuthEndpoints, url: string, params: Record<string, string>, body: 'form' | 'json'): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': body === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
      },
      body: body === 'json' ? JSON.stringify(params) : new URLSearchParams(params).toString(),
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: 'error',
    });
  } catch (err) {
    throw new OAuthCallError(`${endpoints.vendor}'s authorization server cannot be reached (${new URL(url).origin}): ${clip((err as Error).message)}`);
  }
  const text = await response.text();
  let json: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    json = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    json = {};
  }
  const error = typeof json.error === 'string' ? json.error : undefined;
  if (!response.ok || error !== undefined) {
    const description = typeof json.error_description === 'string' ? `: ${clip(json.error_description)}` : '';
    throw new OAuthCallError(
      `${endpoints.vendor}'s authorization server refused (HTTP ${response.status}${error ? `, ${clip(error)}` : ''})${description}`,
      error,
    );
  }
  return json;
}

function tokenSetOf(endpoints: OAuthEndpoints, json: Record<string, unknown>, now: number): TokenSet {
  const accessToken = json.access_token;
  if (typeof accessToken !== 'string' || accessToken === '') {
    throw new OAuthCallError(`${endpoints.vendor}'s authorization server answered without an access_token`);
  }
  const expiresIn = typeof json.expires_in === 'number' ? json.expires_in : Number(json.expires_in);
  return {
    accessToken,
    ...(typeof json.refresh_token === 'string' && json.refresh_token !== '' ? { refreshToken: json.refresh_token } : {}),
    ...(Number.isFinite(expiresIn) && expiresIn > 0 ? { expiresAt: now + expiresIn * 1000 } : {}),
  };
}

/** Exchanges a pasted authorization code (with the PKCE verifier of its session) for tokens. */
export async function exchangeCode(
  endpoints: OAuthEndpoints,
  grant: { code: string; verifier: string; state: string },
  now: () => number,
): Promise<TokenSet> {
  const json = await post(endpoints, endpoints.tokenUrl, {
    grant_type: 'authorization_code',
    code: grant.code,
    code_verifier: grant.verifier,
    client_id: endpoints.clientId,
    redirect_uri: endpoints.redirectUri ?? '',
    // Anthropic's endpoint wants the state back with the code.
    state: grant.state,
  }, endpoints.tokenBody);
  return tokenSetOf(endpoints, json, now());
}

export interface DeviceAuthorization {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete?: string;
  expiresIn: number;
  /** Seconds between polls the server asks for (5 when it does not say). */
  interval: number;
}

/** RFC 8628 §3.1: asks for a device code and the user code to show. */
export async function requestDeviceCode(endpoints: OAuthEndpoints): Promise<DeviceAuthorization> {
  const json = await post(endpoints, endpoints.deviceCodeUrl!, { client_id: endpoints.clientId, scope: endpoints.scope }, 'form');
  const str = (key: string) => (typeof json[key] === 'string' && json[key] !== '' ? (json[key] as string) : undefined);
  const deviceCode = str('device_code');
  const userCode = str('user_code');
  const verificationUri = str('verification_uri') ?? str('verification_url');
  const expiresIn = Number(json.expires_in);
  if (!deviceCode || !userCode || !verificationUri || !Number.isFinite(expiresIn) || expiresIn <= 0) {
    throw new OAuthCallError(`${endpoints.vendor}'s device authorization answer lacks device_code, user_code, verification_uri or expires_in`);
  }
  const interval = Number(json.interval);
  const complete = str('verification_uri_complete');
  return {
    deviceCode,
    userCode: clip(userCode),
    verificationUri: clip(verificationUri),
    ...(complete ? { verificationUriComplete: clip(complete) } : {}),
    expiresIn,
    interval: Number.isFinite(interval) && interval > 0 ? interval : 5,
  };
}

export type DevicePoll =
  | { status: 'connected'; tokens: TokenSet }
  | { status: 'pending'; slowDown: boolean; detail?: string }
  | { status: 'error'; detail: string };

/** RFC 8628 §3.4-3.5: one poll of the token endpoint with the device code. */
export async function pollDeviceToken(endpoints: OAuthEndpoints, deviceCode: string, now: () => number): Promise<DevicePoll> {
  try {
    const json = await post(endpoints, endpoints.tokenUrl, {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: deviceCode,
      client_id: endpoints.clientId,
    }, 'form');
    return { status: 'connected', tokens: tokenSetOf(endpoints, json, now()) };
  } catch (err) {
    if (!(err instanceof OAuthCallError)) throw err;
    if (err.code === 'authorization_pending') return { status: 'pending', slowDown: false };
    if (err.code === 'slow_down') return { status: 'pending', slowDown: true };
    if (err.code === 'expired_token') return { status: 'error', detail: 'The code expired before it was entered; start the login again' };
    if (err.code === 'access_denied') return { status: 'error', detail: 'The login was declined' };
    // No OAuth error code: the server could not be reached or failed; the next poll tries again.
    if (err.code === undefined) return { status: 'pending', slowDown: false, detail: err.message };
    return { status: 'error', detail: err.message };
  }
}

/** RFC 6749 §6: a new access token for a refresh token (the server may rotate the refresh token). */
export async function refreshTokens(endpoints: OAuthEndpoints, refreshToken: string, now: () => number): Promise<TokenSet> {
  const json = await post(endpoints, endpoints.tokenUrl, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: endpoints.clientId,
  }, endpoints.tokenBody);
  const tokens = tokenSetOf(endpoints, json, now());
  return tokens.refreshToken !== undefined ? tokens : { ...tokens, refreshToken };
}
