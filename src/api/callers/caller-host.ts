import { isLoopbackName, isWildcardAddress, type HostAndPort } from '../../shared/host-names.js';

/**
 * Which `Host` a request may be addressed to. A web page that rebinds a name of its own to this
 * machine (DNS rebinding) is same-origin with the server in the browser's eyes, so every answer
 * would be its to read and every form its to send; the one thing it cannot choose is the Host
 * header, which carries its own name. So the server answers only names that cannot be a foreign
 * site's: pure functions, applied to every request by caller-checks.ts.
 */

export interface HostPolicy {
  /** The address the server listens on (`HOST`). */
  listenHost: string;
  /** Names the user added (`CAIRN_ALLOWED_HOSTS` / `server.allowedHosts`). */
  allowedHosts: readonly HostAndPort[];
}

/** Where the request came in: the server's own end of the connection. */
export interface Arrival {
  port: number;
  /** The local address of the connection, when it came over TCP. */
  address: string | undefined;
}

/** A Host header without a port names port 80: Cairn speaks plain HTTP. */
export const HTTP_DEFAULT_PORT = 80;

/** `::ffff:10.0.0.5` (an IPv4 connection to a dual-stack socket) as the address a client wrote. */
function plainAddress(address: string): string {
  const lower = address.toLowerCase();
  return lower.startsWith('::ffff:') && lower.includes('.') ? lower.slice('::ffff:'.length) : lower;
}

/** The Host's hostname as an address to compare with a socket's (brackets off, lower case). */
function addressOf(hostname: string): string {
  return plainAddress(hostname.startsWith('[') ? hostname.slice(1, -1) : hostname);
}

/**
 * Whether a request addressed to `host` is for this server. Accepted, on the port the request
 * came in on: a loopback name (`localhost`, `*.localhost`, 127.0.0.0/8, `[::1]`), the listen
 * address (`HOST`, unless it is a wildcard), and the address literal of the interface the
 * connection arrived on (reaching a server bound to 0.0.0.0 by its IP: an address literal cannot
 * be rebound). Accepted on any port unless the entry names one: the names the user configured,
 * since behind a reverse proxy the Host carries the proxy's port.
 */
export function isAllowedHost(host: HostAndPort, arrival: Arrival, policy: HostPolicy): boolean {
  const port = host.port ?? HTTP_DEFAULT_PORT;
  for (const entry of policy.allowedHosts) {
    if (entry.hostname === host.hostname && (entry.port === undefined || entry.port === port)) return true;
  }
  if (port !== arrival.port) return false;
  if (isLoopbackName(host.hostname)) return true;
  const listen = policy.listenHost.trim().toLowerCase();
  if (!isWildcardAddress(listen) && addressOf(host.hostname) === addressOf(listen)) return true;
  return arrival.address !== undefined && addressOf(host.hostname) === plainAddress(arrival.address);
}
