import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CairnError } from '../../shared/errors.js';
import { excerpt } from '../errors.js';
import type { WebFiles } from '../web-ui/web-files.js';
import { IMMUTABLE, NO_CACHE, pageHeaders } from '../web-ui/page-headers.js';

export interface WebPageRoutesOptions {
  files: WebFiles;
}

/** The dashboard's addresses (web/src/app.tsx routes them in the page); each answers the page itself. */
export const DASHBOARD_PAGES = ['/', '/approvals', '/schedules', '/hooks', '/status', '/runs/:runId', '/workflows', '/workflows/:name', '/workflows/:name/edit', '/new-workflow', '/chat', '/chat/:conversationId', '/codebases', '/settings'] as const;
export const DASHBOARD_ASSETS = '/assets/:file';

/**
 * The dashboard (docs/dashboard.md): the page at each of its addresses, so that a reload or a
 * bookmark of `/runs/<id>` works, and its hashed files under `/assets/`. Named routes only, no
 * wildcard: every other address, `/api/...` included, keeps the API's own JSON 404.
 */
export const webPageRoutes: FastifyPluginAsyncZod<WebPageRoutesOptions> = async (app, { files }) => {
  const page = async (_req: unknown, reply: FastifyReply) => {
    if (!files.index) throw new CairnError('NOT_FOUND', 'The dashboard is not built: run npm run build, then restart the server');
    return reply.headers(pageHeaders).type('text/html; charset=utf-8').header('cache-control', NO_CACHE).send(files.index);
  };
  // Any query string: the page keeps its filters there and reads them itself.
  const schema = { hide: true, querystring: z.record(z.string(), z.unknown()) };
  for (const url of DASHBOARD_PAGES) app.get(url, { schema }, page);

  app.get(DASHBOARD_ASSETS, { schema: { hide: true } }, async (req, reply) => {
    const path = req.url.split('?')[0] ?? '';
    const asset = files.assets.get(path);
    if (!asset) throw new CairnError('NOT_FOUND', `No dashboard file ${excerpt(path)}: the page names its files by their hash; reload it`);
    return reply.headers(pageHeaders).type(asset.contentType).header('cache-control', IMMUTABLE).send(asset.body);
  });
};
