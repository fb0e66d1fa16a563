/**
 * Whether something answers HTTP at a URL, within a short timeout: any HTTP answer counts (a
 * model server answers its base URL with 404 or 401 as often as with 200). Says which address
 * was tried and, when nothing answered, why.
 */

export const REACH_TIMEOUT_MS = 3_000;

export type Reach =
  | { ok: true; address: string; status: number; body: string }
  | { ok: false; address: string; why: string };

/** `host:port` of a URL, with the scheme's default port made explicit. */
export function addressOf(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname}:${port}`;
}

const causeText: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused: nothing listens there',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'the connection timed out',
};

export async function reachUrl(raw: string, timeoutMs = REACH_TIMEOUT_MS): Promise<Reach> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, address: raw, why: 'it is not a URL' };
  }
  const address = addressOf(url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, address, why: 'it does not start with http:// or https://' };
  try {
    const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    const body = await res.text().catch(() => '');
    return { ok: true, address, status: res.status, body };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return { ok: false, address, why: `no answer within ${timeoutMs / 1000} s` };
    const code = e.cause?.code;
    const why = (code && causeText[code]) ?? e.cause?.message ?? e.message;
    return { ok: false, address, why: code && !causeText[code] ? `${why} (${code})` : why };
  }
}
