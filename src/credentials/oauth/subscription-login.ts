import { CairnError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import { getCredentialVendor, isSubscriptionVendor, normaliseVendorId, subscriptionVendors } from '../../shared/providers/credential-vendors.js';
import type { InstallKey } from '../../shared/secrets/install-key.js';
import type { CredentialStore } from '../../store/credentials.js';
import { sealCredential } from '../credential-seal.js';
import { exchangeCode, OAuthCallError, pollDeviceToken, requestDeviceCode, type TokenSet } from './oauth-client.js';
import type { OAuthEndpointTable } from './oauth-endpoints.js';
import { LoginSessions, type DeviceSession, type LoginSession, type LoginStatus, type ManualSession } from './oauth-sessions.js';
import { newPkcePair, randomToken } from './pkce.js';

/**
 * Subscription (OAuth) login, for the routes `.../oauth/start` and `.../oauth/poll`. A finished
 * login is stored as the user's credential for the vendor (kind `oauth`), sealed.
 */

/** How long a manual login waits for its pasted code. */
export const MANUAL_LOGIN_SECONDS = 600;
/** `slow_down` adds this to the interval (RFC 8628 §3.5). */
const SLOW_DOWN_MS = 5_000;

export type LoginStart =
  | { sessionId: string; mode: 'manual'; url: string; expiresIn: number }
  | {
      sessionId: string; mode: 'device'; userCode: string; verificationUri: string;
      verificationUriComplete?: string; interval: number; expiresIn: number;
    };

export interface LoginPoll {
  status: LoginStatus;
  detail?: string;
}

export interface SubscriptionLoginDeps {
  store: CredentialStore;
  installKey: () => InstallKey;
  endpoints: OAuthEndpointTable;
  now: () => number;
  log: Logger;
}

export class SubscriptionLogin {
  private readonly sessions: LoginSessions;

  constructor(private readonly deps: SubscriptionLoginDeps) {
    this.sessions = new LoginSessions(deps.now);
  }

  async start(userId: string, providerParam: string): Promise<LoginStart> {
    const vendor = normaliseVendorId(providerParam) ?? providerParam;
    if (!isSubscriptionVendor(vendor)) {
      throw new CairnError(
        'OAUTH_UNSUPPORTED',
        `Provider ${JSON.stringify(providerParam.slice(0, 100))} does not support subscription login. Subscription providers: ${subscriptionVendors.join(', ')}.`,
      );
    }
    const endpoints = this.deps.endpoints[vendor];
    const id = randomToken();
    const now = this.deps.now();
    if (endpoints.mode === 'manual') {
      const { verifier, challenge } = newPkcePair();
      const state = randomToken(16);
      const url = new URL(endpoints.authorizeUrl!);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', endpoints.clientId);
      url.searchParams.set('redirect_uri', endpoints.redirectUri ?? '');
      if (endpoints.scope !== '') url.searchParams.set('scope', endpoints.scope);
      url.searchParams.set('code_challenge', challenge);
      url.searchParams.set('code_challenge_method', 'S256');
      url.searchParams.set('state', state);
      if (vendor === 'anthropic') url.searchParams.set('code', 'true'); // Anthropic shows the code to paste
      const session: ManualSession = {
        id, userId, vendor, mode: 'manual', verifier, state, codeUsed: false,
        expiresAt: now + MANUAL_LOGIN_SECONDS * 1000, status: 'pending',
      };
      this.sessions.add(session);
      this.deps.log.info({ vendor, userId, mode: 'manual' }, 'credentials.oauth_started');
      return { sessionId: id, mode: 'manual', url: url.toString(), expiresIn: MANUAL_LOGIN_SECONDS };
    }
    const device = await requestDeviceCode(endpoints).catch((err: unknown) => {
      throw err instanceof OAuthCallError ? new CairnError('OAUTH_UNAVAILABLE', err.message) : err;
    });
    const session: DeviceSession = {
      id, userId, vendor, mode: 'device', deviceCode: device.deviceCode, intervalMs: device.interval * 1000,
      nextPollAt: now + device.interval * 1000, polling: false, expiresAt: now + device.expiresIn * 1000, status: 'pending',
    };
    this.sessions.add(session);
    this.deps.log.info({ vendor, userId, mode: 'device' }, 'credentials.oauth_started');
    return {
      sessionId: id, mode: 'device', userCode: device.userCode, verificationUri: device.verificationUri,
      ...(device.verificationUriComplete ? { verificationUriComplete: device.verificationUriComplete } : {}),
      interval: device.interval, expiresIn: device.expiresIn,
    };
  }

  async poll(userId: string, providerParam: string, sessionId: string, code: string | undefined): Promise<LoginPoll> {
    const vendor = normaliseVendorId(providerParam) ?? providerParam;
    const session = this.sessions.get(sessionId, userId);
    if (!session || session.vendor !== vendor) {
      throw new CairnError('OAUTH_SESSION_NOT_FOUND', `No login ${JSON.stringify(sessionId.slice(0, 100))} under way for this user and provider; start one with POST .../oauth/start`);
    }
    if (session.status !== 'pending') return answer(session);
    if (this.deps.now() >= session.expiresAt) return this.end(session, 'error', 'The login expired; start it again');
    return session.mode === 'manual' ? this.pollManual(session, code) : this.pollDevice(session);
  }

  private async pollManual(session: ManualSession, pasted: string | undefined): Promise<LoginPoll> {
    if (pasted === undefined || pasted.trim() === '') {
      return { status: 'pending', detail: 'Open the URL, authorize, and send the code you are shown as `code`' };
    }
    if (session.codeUsed) return answer(session);
    session.codeUsed = true;
    const { code, state } = readPastedCode(pasted);
    if (state !== undefined && state !== session.state) {
      return this.end(session, 'error', 'The pasted code belongs to another login (its state does not match); start again');
    }
    try {
      const tokens = await exchangeCode(this.deps.endpoints[session.vendor], { code, verifier: session.verifier, state: session.state }, this.deps.now);
      return await this.connect(session, tokens);
    } catch (err) {
      if (!(err instanceof OAuthCallError)) throw err;
      return this.end(session, 'error', err.message);
    }
  }

  private async pollDevice(session: DeviceSession): Promise<LoginPoll> {
    const now = this.deps.now();
    if (session.polling || now < session.nextPollAt) return { status: 'pending', detail: 'Waiting for the code to be entered' };
    session.polling = true;
    try {
      const result = await pollDeviceToken(this.deps.endpoints[session.vendor], session.deviceCode, this.deps.now);
      if (result.status === 'connected') return await this.connect(session, result.tokens);
      if (result.status === 'error') return this.end(session, 'error', result.detail);
      if (result.slowDown) session.intervalMs += SLOW_DOWN_MS;
      session.nextPollAt = this.deps.now() + session.intervalMs;
      return { status: 'pending', detail: result.detail ?? 'Waiting for the code to be entered' };
    } finally {
      session.polling = false;
    }
  }

  private async connect(session: LoginSession, tokens: TokenSet): Promise<LoginPoll> {
    const sealed = sealCredential(this.deps.installKey(), session.userId, {
      vendor: session.vendor,
      kind: 'oauth',
      label: `${getCredentialVendor(session.vendor)?.displayName ?? session.vendor} subscription`,
      secret: tokens.accessToken,
      ...(tokens.refreshToken !== undefined ? { refreshToken: tokens.refreshToken } : {}),
      ...(tokens.expiresAt !== undefined ? { expiresAt: tokens.expiresAt } : {}),
    });
    await this.deps.store.putCredential(sealed);
    this.deps.log.info({ vendor: session.vendor, userId: session.userId }, 'credentials.oauth_connected');
    return this.end(session, 'connected');
  }

  private end(session: LoginSession, status: LoginStatus, detail?: string): LoginPoll {
    session.status = status;
    if (detail !== undefined) session.detail = detail;
    // The secrets of a finished login are dropped at once.
    if (session.mode === 'manual') session.verifier = '';
    else session.deviceCode = '';
    if (status === 'error') this.deps.log.info({ vendor: session.vendor, userId: session.userId, detail }, 'credentials.oauth_failed');
    return answer(session);
  }
}

function answer(session: LoginSession): LoginPoll {
  return { status: session.status, ...(session.detail !== undefined ? { detail: session.detail } : {}) };
}

/**
 * What the user pasted: the bare code, Anthropic's `code#state`, or the whole redirect URL the
 * browser landed on (`...?code=...&state=...`).
 */
export function readPastedCode(pasted: string): { code: string; state?: string } {
  const text = pasted.trim();
  if (/^https?:\/\//i.test(text)) {
    try {
      const url = new URL(text);
      const code = url.searchParams.get('code');
      if (code) return { code, ...(url.searchParams.get('state') ? { state: url.searchParams.get('state')! } : {}) };
    } catch {
      // not a URL after all: taken as the code itself
    }
  }
  const hash = text.indexOf('#');
  if (hash > 0) return { code: text.slice(0, hash), state: text.slice(hash + 1) };
  return { code: text };
}
