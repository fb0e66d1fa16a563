import { signal } from '@preact/signals';

/**
 * Who the per-user settings are for. Cairn has no sign-in of its own: the per-user routes take
 * the user from the `X-Service-User` header, which a reverse proxy that signs people in sets.
 * Without one, the person names themselves on the settings page; the name is kept in this
 * browser and sent with the per-user requests only.
 */
const KEY = 'cairn.user';

function stored(): string {
  try {
    return window.localStorage.getItem(KEY) ?? '';
  } catch {
    return '';
  }
}

export const user = signal(stored());

export function setUser(name: string): void {
  const value = name.trim();
  try {
    if (value) window.localStorage.setItem(KEY, value);
    else window.localStorage.removeItem(KEY);
  } catch {
    // A browser that keeps nothing: the name holds until the page is closed.
  }
  user.value = value;
}

/** The headers of a per-user request. */
export function userHeaders(): Record<string, string> {
  return user.value ? { 'x-service-user': user.value } : {};
}
