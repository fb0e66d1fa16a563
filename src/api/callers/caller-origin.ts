import type { HostAndPort } from '../../shared/host-names.js';

/**
 * Whether a state-changing request may come from where the browser says it comes from. Cairn has
 * no authentication and runs commands, and a browser sends a page's "simple" requests (a body-less
 * POST, a form: multipart/form-data, text/plain, x-www-form-urlencoded) to any server without
 * asking it first (no CORS preflight). What a browser always adds is where the request comes
 * from: `Origin` (every cross-origin POST, PUT, PATCH and DELETE of a modern browser),
 * `Sec-Fetch-Site`, and often `Referer`. Programs that are not browsers (the `cairn` CLI, curl,
 * scripts) send none of these and are let through unchanged. Node's own fetch sends
 * `Sec-Fetch-Mode: cors` on every request, so only `Sec-Fetch-Site` counts as a browser's word.
 *
 * The server's own origin is `http://` (or `https://`, as a TLS-terminating proxy that keeps the
 * Host header presents it) followed by the Host header the request came with, which the Host
 * check has already accepted; a name the user configured (`CAIRN_ALLOWED_HOSTS`) counts as the
 * server's own too, so that pages served behind a proxy that rewrites Host still work.
 */

/** Methods that change nothing: never checked here (the Host check still applies). */
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isStateChanging(method: string): boolean {
  return !safeMethods.has(method.toUpperCase());
}

export interface CallerHeaders {
  origin: string | undefined;
  secFetchSite: string | undefined;
  referer: string | undefined;
  contentType: string | undefined;
}

export type OriginVerdict = { allowed: true } | { allowed: false; why: string };

function defaultPort(protocol: string): number {
  return protocol === 'https:' ? 443 : 80;
}

/**
 * Whether `url` (an Origin or a Referer) is the server's own origin: http or https, and the same
 * name and port as the request's Host (a Host without a port carries the scheme's default port),
 * or a configured name.
 */
export function isOwnOrigin(url: URL, host: HostAndPort, allowedHosts: readonly HostAndPort[]): boolean {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.username !== '' || url.password !== '') return false;
  const hostname = url.hostname.toLowerCase();
  const port = url.port === '' ? defaultPort(url.protocol) : Number(url.port);
  if (hostname === host.hostname && port === (host.port ?? defaultPort(url.protocol))) return true;
  return allowedHosts.some((entry) => entry.hostname === hostname && (entry.port === undefined || entry.port === port));
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** What the text quotes of a foreign Origin or Referer: its origin alone, never a path or query. */
function describeUrl(text: string): string {
  const url = parseUrl(text);
  const shown = url && url.origin !== 'null' ? url.origin : text;
  return shown.length <= 80 ? shown : `${shown.slice(0, 80)}…`;
}

/** The media type of a Content-Type header, lower case, without its parameters. */
function mediaType(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type === '' ? undefined : type;
}

/**
 * Decides a state-changing request. In order: an `Origin` must be the server's own; else a
 * `Sec-Fetch-Site` must not be `cross-site` or `same-site`; else a `Referer` must be the server's
 * own. A request from a browser (Origin or Sec-Fetch-Site present) whose body is not JSON (none at
 * all, or a form) must also prove it comes from the server's own pages: an own Origin or
 * `Sec-Fetch-Site: same-origin`. JSON cannot be sent cross-origin without a preflight, which no
 * other origin ever passes (the server answers no CORS headers).
 */
export function decideOrigin(headers: CallerHeaders, host: HostAndPort, allowedHosts: readonly HostAndPort[]): OriginVerdict {
  if (headers.origin !== undefined) {
    const url = parseUrl(headers.origin);
    if (url && isOwnOrigin(url, host, allowedHosts)) return { allowed: true };
    return { allowed: false, why: `it was sent by a page of another origin (Origin: ${describeUrl(headers.origin)})` };
  }
  const site = headers.secFetchSite?.trim().toLowerCase();
  if (site !== undefined) {
    if (site === 'same-origin') return { allowed: true };
    if (site !== 'none') return { allowed: false, why: `the browser says it was sent by another site (Sec-Fetch-Site: ${describeUrl(site)})` };
  }
  if (headers.referer !== undefined) {
    const url = parseUrl(headers.referer);
    if (!url || !isOwnOrigin(url, host, allowedHosts)) {
      return { allowed: false, why: `it was sent from a page of another origin (Referer: ${describeUrl(headers.referer)})` };
    }
  }
  if (site !== undefined && mediaType(headers.contentType) !== 'application/json') {
    const body = mediaType(headers.contentType) ?? 'no body';
    return {
      allowed: false,
      why: `a browser sent it (${body}) without saying it comes from this server's own pages (an Origin of this server, or Sec-Fetch-Site: same-origin)`,
    };
  }
  return { allowed: true };
}
