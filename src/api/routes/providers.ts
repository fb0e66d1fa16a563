import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listProviders, providerSchema } from '../../shared/providers/registry.js';

const providerViewSchema = providerSchema.pick({ id: true, displayName: true, capabilities: true, builtIn: true });

const providerListResponseSchema = z.object({
  providers: z.array(providerViewSchema).describe('Every registered provider, in display order'),
});

/** `GET /api/providers`: the provider registry, as a workflow's `provider:` may name it. */
export const providerRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/providers',
    {
      schema: {
        tags: ['providers'],
        summary: 'The AI providers a workflow may name',
        description:
          'Ids accepted in provider:, with display names, what each can do (structured output, ' +
          'session resume, MCP, effort, ...) and which measurements it reports. builtIn follows the ' +
          'upstream registry.',
        response: { 200: providerListResponseSchema },
      },
    },
    async () => ({ providers: listProviders().map(({ id, displayName, capabilities, builtIn }) => ({ id, displayName, capabilities, builtIn })) }),
  );
};
