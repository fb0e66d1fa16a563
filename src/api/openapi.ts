import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createJsonSchemaTransformObject, jsonSchemaTransform } from 'fastify-type-provider-zod';

/**
 * OpenAPI 3.0, generated from the zod schemas every route validates with: the transform turns
 * each route's schemas into the document, so the description cannot drift from the checks.
 * Must be registered before the routes (it collects them as they are added).
 */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Cairn',
        version,
        description:
          'Local server that drives AI coding assistants through YAML workflows. Errors answer ' +
          '{ error, code } with a 4xx for bad input. Run-level tiers, aliases and config are ' +
          'validated and kept in the run’s metadata; binding them to models is done by a later ' +
          'version of the engine.',
      },
      tags: [
        { name: 'health', description: 'Liveness, database and supervisor status' },
        { name: 'workflows', description: 'Starting workflow runs' },
        { name: 'runs', description: 'Reading and cancelling runs' },
        { name: 'streams', description: 'Server-Sent Events of run events' },
      ],
    },
    transform: jsonSchemaTransform,
    // Shared components (schemas with a meta id) must use the 3.0 dialect too: nullable, not type arrays.
    transformObject: createJsonSchemaTransformObject({ zodToJsonConfig: { target: 'openapi-3.0' } }),
  });
}

/** `GET /api/openapi.json`. */
export const openApiRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
