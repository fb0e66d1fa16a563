import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CairnError } from '../../shared/errors.js';
import { runErrorText } from '../../runs/run-texts.js';
import type { Store } from '../../store/store.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { runDefinitionResponseSchema } from '../../wire/run-definition.js';
import { runIdParamsSchema } from '../../wire/runs.js';

/** `GET /api/workflows/runs/{runId}/definition`: the workflow stored with the run. */
export const runDefinitionRoutes: FastifyPluginAsyncZod<{ store: Store }> = async (app, { store }) => {
  app.get(
    '/api/workflows/runs/:runId/definition',
    {
      schema: {
        tags: ['runs'],
        summary: 'The workflow definition stored with a run',
        description:
          'The definition the run executes: stored when the run was queued (a resume that read a newer file replaces it). ' +
          'Unlike GET /api/workflows/{name}, it does not change when the workflow file does.',
        params: runIdParamsSchema,
        response: { 200: runDefinitionResponseSchema, 404: errorBodySchema },
      },
    },
    async (req) => {
      const run = await store.getRun(req.params.runId);
      if (!run) throw new CairnError('RUN_NOT_FOUND', runErrorText.notFound);
      const definition = await store.getRunDefinition(run.id);
      const stored = definition !== null && typeof definition === 'object' && !Array.isArray(definition) ? (definition as Record<string, unknown>) : {};
      return { definition: stored };
    },
  );
};
