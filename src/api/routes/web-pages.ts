import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { WebFiles } from '../web-ui/web-files.js';
import { IMMUTABLE, NO_CACHE, pageHeaders } from '../web-ui/page-headers.js';

export interface WebPageRoutesOptions {
  files: WebFiles;
}

/** Paths the dashboard never answers: the API's own (an unknown one stays a JSON 404). */
function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/') || path.startsWith('/health/');
}

/**
 * The dashboard (docs/dashboard.md): `/assets/<hashed name>` from the built files, and every
 * other address outside the API answered with the page itself, which routes on the client
 * (`/`, `/runs/<id>`, `/approvals`, `/status`). The routes are registered after the API's and
 * fastify matches a static route before a wildcard, so `/api/*` is never shadowed; an unknown
 * `/api/...` path reaching the wildcard goes on to the API's JSON 404.
 */
export const webPageRoutes: FastifyPluginAsyncZod<WebPageRoutesOptions> = async (app, { files }) => {
  const serve = async (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0] ?? '/';
    if (isApiPath(path)) return reply.callNotFound();
    void reply.headers(pageHeaders);
    if (path.startsWith('/assets/')) {
      const asset = files.assets.get(path);
      if (!asset) return reply.code(404).type('text/plain; charset=utf-8').header('cache-control', NO_CACHE).send(`No dashboard file ${path}\n`);
      return reply.type(asset.contentType).header('cache-control', IMMUTABLE).send(asset.body);
    }
    if (!files.index) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .header('cache-control', NO_CACHE)
        .send('The dashboard is not built: run npm run build, then restart the server.\n');
    }
    return reply.type('text/html; charset=utf-8').header('cache-control', NO_CACHE).send(files.index);
  };
  // Any query string: the page keeps its filters there and reads them itself.
  const schema = { hide: true, querystring: z.record(z.string(), z.unknown()) };
  app.get('/', { schema }, serve);
  app.get('/*', { schema }, serve);
};
