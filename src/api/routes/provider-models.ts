import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Settings } from '../../shared/config.js';
import type { Logger } from '../../shared/log.js';
import { modelInfoSchema } from '../../wire/model-config.js';
import { listProviderModels } from '../provider-models.js';

/** `GET /api/providers/{vendor}/models`: a backend's model catalog, best effort; `[]` rather than an error. */
export const providerModelRoutes: FastifyPluginAsyncZod<{ settings: Pick<Settings, 'providers'>; log: Logger; timeoutMs?: number }> = async (
  app,
  opts,
) => {
  app.get(
    '/api/providers/:vendor/models',
    {
      schema: {
        tags: ['providers'],
        summary: 'The model catalog of one backend, with cost and reasoning facts',
        description:
          'A vendor id (anthropic, openai, google, github-copilot) or a provider id standing for its vendor (claude, codex, ...). ' +
          'Asks the provider when a connection to it is configured, else answers the bundled catalog; [] for a backend without one. Never an error.',
        params: z.object({ vendor: z.string() }),
        response: { 200: z.array(modelInfoSchema) },
      },
    },
    async (req) => listProviderModels(req.params.vendor, { connections: opts.settings.providers.connections, log: opts.log, ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}) }),
  );
};
