import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { OpenAPIV3 } from 'openapi-types';
import { createJsonSchemaTransformObject, jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { runMultipartBodySchema } from '../wire/run-request.js';

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
        { name: 'workflows', description: 'Workflow definitions and commands: list, get, validate, save, delete, run' },
        { name: 'runs', description: 'Reading, paging and operating on runs; their artifacts; the dashboard' },
        { name: 'conversations', description: 'Chat threads and their messages' },
        { name: 'system', description: 'Update check' },
        { name: 'streams', description: 'Server-Sent Events of run events' },
        { name: 'codebases', description: 'Registered repositories and folders, env-key consent, isolation environments' },
        { name: 'providers', description: 'The AI providers a workflow may name' },
      ],
    },
    transform: jsonSchemaTransform,
    transformObject: (input) =>
      addCallerRefusals(addQueryRefusals(addMultipartRunBody(markOptionalBodies(addComponents(input) as OpenApiDocument)))),
  });
}

// Shared components (schemas with a meta id) must use the 3.0 dialect too: nullable, not type arrays.
const addComponents = createJsonSchemaTransformObject({ zodToJsonConfig: { target: 'openapi-3.0' } });

type OpenApiDocument = Partial<OpenAPIV3.Document>;

/**
 * @fastify/swagger marks every request body required. A body schema that accepts null (our
 * way of saying "no body is fine", since fastify validates a missing body as null) is not.
 */
function markOptionalBodies(doc: OpenApiDocument): OpenApiDocument {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item ?? {})) {
      if (typeof operation !== 'object' || operation === null || !('requestBody' in operation)) continue;
      const body = operation.requestBody as OpenAPIV3.RequestBodyObject | undefined;
      const schema = body?.content['application/json']?.schema as OpenAPIV3.SchemaObject | undefined;
      if (body && schema?.nullable === true) body.required = false;
    }
  }
  return doc;
}

/**
 * Every route refuses a query parameter it does not read with a 400 (`strict-query.ts`), so every
 * operation can answer 400; routes whose schema lists no 400 of their own get it here, as JSON
 * (the stream routes' `produces` would otherwise mark it text/event-stream).
 */
function addQueryRefusals(doc: OpenApiDocument): OpenApiDocument {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item ?? {})) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      const responses = (operation as OpenAPIV3.OperationObject).responses;
      responses['400'] ??= {
        description: 'An unknown query parameter, or a parameter of the wrong type',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
  }
  return doc;
}

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

/**
 * Who may call the server (caller-checks.ts): every operation answers 421 to a Host the server
 * does not answer to, and every write answers 403 to a request another web page sent.
 */
function addCallerRefusals(doc: OpenApiDocument): OpenApiDocument {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item ?? {})) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      const responses = (operation as OpenAPIV3.OperationObject).responses;
      if (['post', 'put', 'patch', 'delete'].includes(method)) {
        responses['403'] ??= {
          description: 'CROSS_ORIGIN_REFUSED: sent by another web page (its Origin, Sec-Fetch-Site or Referer is not this server’s)',
          content: errorContent,
        };
      }
      responses['421'] ??= {
        description: 'HOST_NOT_ALLOWED: the Host is not a loopback name, the listen address or a name in CAIRN_ALLOWED_HOSTS',
        content: errorContent,
      };
    }
  }
  return doc;
}

/** The run route also takes multipart/form-data (with attachments); described from its own zod schema. */
function addMultipartRunBody(doc: OpenApiDocument): OpenApiDocument {
  const body = doc.paths?.['/api/workflows/{name}/run']?.post?.requestBody as OpenAPIV3.RequestBodyObject | undefined;
  if (body) {
    const schema = z.toJSONSchema(runMultipartBodySchema, { target: 'openapi-3.0' }) as Record<string, unknown>;
    delete schema.$schema;
    body.content['multipart/form-data'] = { schema: schema as OpenAPIV3.SchemaObject };
  }
  return doc;
}

/** `GET /api/openapi.json`. */
export const openApiRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
