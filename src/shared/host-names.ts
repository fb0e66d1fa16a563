import { isIP } from 'node:net';

/**
 * Host names as the server's caller checks read them: parsing a `Host` header or a configured
 * entry (`name[:port]`), and telling loopback names and wildcard listen addresses apart. Kept in
 * `shared/` because the API checks requests with it and the launcher warns with it.
 */

/** The setting that adds names the server answers to (comma-separated `name[:port]` entries). */
export const ALLOWED_HOSTS_ENV = 'CAIRN_ALLOWED_HOSTS';
/** The same setting in `$CAIRN_HOME/config.yaml`: a list of `name[:port]` entries. */
export const ALLOWED_HOSTS_CONFIG_KEY = 'server.allowedHosts';

/** A host name or address with an optional port, as a Host header or a configured entry gives it. */
export interface HostAndPort {
  /** Lower case; an IPv6 address keeps its brackets (`[::1]`), as it appears in a URL. */
  hostname: string;
  /** Undefined when none was written (a Host header then means the scheme's default port). */
  port: number | undefined;
}

// A DNS name (letters, digits, `-`, `.`, and `_` which some local names carry), an IPv4 address,
// or a bracketed IPv6 address; then an optional port. Nothing else: no user info, path or spaces.
const authorityPattern = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?)(?::(\d{1,5}))?$/;

/** Parses `name[:port]`; undefined when it is not one (a Host header or an entry that cannot be a host). */
export function parseHostAndPort(text: string): HostAndPort | undefined {
  const match = authorityPattern.exec(text.trim());
  if (!match) return undefined;
  const hostname = match[1]!.toLowerCase();
  if (hostname.startsWith('[') && isIP(hostname.slice(1, -1)) !== 6) return undefined;
  if (match[2] === undefined) return { hostname, port: undefined };
  const port = Number(match[2]);
  return port >= 1 && port <= 65535 ? { hostname, port } : undefined;
}

/** `hostname` without the brackets of an IPv6 literal. */
export function unbracket(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * Names that always mean this machine: `localhost` and its subdomains (RFC 6761; browsers never
 * ask DNS for them), the IPv4 loopback range 127.0.0.0/8 and `::1`. A web page cannot rebind an
 * address literal, and `*.localhost` never leaves the machine, so none of them can be a foreign
 * site's name.
 */
export function isLoopbackName(hostname: string): boolean {
  const name = unbracket(hostname.toLowerCase());
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  if (isIP(name) === 6) return name === '::1' || name === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(name);
  return false;
}

/** A listen address that takes connections on every interface. */
export function isWildcardAddress(host: string): boolean {
  const address = unbracket(host.trim());
  return address === '' || address === '0.0.0.0' || address === '::' || address === '0:0:0:0:0:0:0:0';
}

/** Whether a server listening on `host` (the `HOST` setting) can be reached from other machines. */
export function listensBeyondLoopback(host: string): boolean {
  return isWildcardAddress(host) || !isLoopbackName(host);
}

/**
 * Reads `CAIRN_ALLOWED_HOSTS` (comma-separated) or the config file's list: each entry a name or
 * address with an optional port. A malformed entry is a problem naming it and the setting.
 */
export function parseAllowedHosts(entries: readonly string[], setting: string): { hosts: HostAndPort[]; problem?: string } {
  const hosts: HostAndPort[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    const parsed = parseHostAndPort(entry);
    if (!parsed) {
      return {
        hosts,
        problem:
          `${setting}: '${entry}' is not a host name with an optional port; ` +
          'write entries such as cairn.example.com, cairn.internal:3090, 192.168.1.20 or [fd00::5]',
      };
    }
    hosts.push(parsed);
  }
  return { hosts };
}
