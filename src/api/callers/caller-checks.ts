import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CairnError } from '../../shared/errors.js';
import { ALLOWED_HOSTS_CONFIG_KEY, ALLOWED_HOSTS_ENV, parseHostAndPort } from '../../shared/host-names.js';
import type { Logger } from '../../shared/log.js';
import { HTTP_DEFAULT_PORT, isAllowedHost, type Arrival, type HostPolicy } from './caller-host.js';
import { decideOrigin, isStateChanging } from './caller-origin.js';
import { excerpt } from '../errors.js';

/**
 * Who may call the server (docs/http-api.md, "Who may call the server"): every request must be
 * addressed to a Host this server answers to (caller-host.ts: 421 HOST_NOT_ALLOWED), and every
 * state-changing one must not come from another web page (caller-origin.ts: 403
 * CROSS_ORIGIN_REFUSED). Checked in `onRequest`, before the body is read, so a refused request
 * writes nothing: no upload reaches the disk, no row, no job. The server sets no CORS headers, so
 * no other origin can read an answer either.
 */

function header(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The server's end of the connection. A request injected by tests (`app.inject`) comes over no
 * connection: it counts as arriving on port 80, the port of light-my-request's default Host
 * (`localhost:80`), so a Host naming another port is refused there as it is on a real socket.
 */
function arrivalOf(req: FastifyRequest): Arrival {
  return { port: req.socket.localPort ?? HTTP_DEFAULT_PORT, address: req.socket.localAddress };
}

function hostRefusal(host: string | undefined, arrival: Arrival): CairnError {
  const named = host === undefined ? 'A request without a Host header' : `Host '${excerpt(host)}'`;
  return new CairnError(
    'HOST_NOT_ALLOWED',
    `${named} is not a name this Cairn server answers to: it answers localhost, 127.0.0.1 and [::1] on port ${arrival.port}, ` +
      `the address it listens on, and the names in ${ALLOWED_HOSTS_ENV} (or ${ALLOWED_HOSTS_CONFIG_KEY} in $CAIRN_HOME/config.yaml). ` +
      'This stops web pages that point a name of theirs at this machine; if you reach the server by this name, add it to that setting and restart.',
  );
}

/** Installs the checks; the first hook of the app, so nothing runs for a refused request. */
export function registerCallerChecks(app: FastifyInstance, policy: HostPolicy, log: Logger): void {
  app.addHook('onRequest', async (req) => {
    const arrival = arrivalOf(req);
    const hostHeader = header(req, 'host');
    const host = hostHeader === undefined ? undefined : parseHostAndPort(hostHeader);
    if (!host || !isAllowedHost(host, arrival, policy)) {
      log.warn({ method: req.method, url: excerpt(req.url, 200), host: hostHeader === undefined ? null : excerpt(hostHeader) }, 'api.host_refused');
      throw hostRefusal(hostHeader, arrival);
    }
    if (!isStateChanging(req.method)) return;
    const verdict = decideOrigin(
      {
        origin: header(req, 'origin'),
        secFetchSite: header(req, 'sec-fetch-site'),
        referer: header(req, 'referer'),
        contentType: header(req, 'content-type'),
      },
      host,
      policy.allowedHosts,
    );
    if (verdict.allowed) return;
    const request = `${req.method} ${excerpt(req.url.split('?')[0] ?? '')}`;
    log.warn({ method: req.method, url: excerpt(req.url, 200), why: verdict.why }, 'api.cross_origin_refused');
    throw new CairnError(
      'CROSS_ORIGIN_REFUSED',
      `${request} was refused: ${verdict.why}. Cairn runs commands and has no authentication, so another web page may not change anything here. ` +
        `Send it from the CLI, curl or a script (no Origin header), or from a page of this server's own origin (http://${hostHeader ?? ''}).`,
    );
  });
}
