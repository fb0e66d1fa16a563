import type { InstallKey } from '../shared/secrets/install-key.js';
import { openSecret, sealSecret } from '../shared/secrets/sealed.js';
import type { StoredHook } from '../store/schemas/hook.js';

/**
 * A webhook's secret, sealed with the install key for a context naming the hook's id: a sealed
 * value copied to another hook's row does not open. Never shown back over HTTP or the CLI.
 */

const contextOf = (hookId: string) => `webhook-secret:${hookId}`;

export function sealHookSecret(key: InstallKey, hookId: string, secret: string): string {
  return sealSecret(key, secret, contextOf(hookId));
}

/** Throws SECRET_UNREADABLE when the install key changed since the hook was made. */
export function openHookSecret(key: InstallKey, hook: StoredHook): string {
  return openSecret(key, hook.sealed_secret, contextOf(hook.id));
}
