import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { resolveRunCwd } from '../run-target/run-cwd.js';
import { lookupWorkflow } from '../workflow-files/workflow-lookup.js';
import { workflowNameParamsSchema } from '../../wire/run-request.js';
import {
  workflowCwdQuerySchema,
  workflowListResponseSchema,
  workflowResponseSchema,
  type WorkflowListResponse,
} from '../../wire/workflows.js';

export interface WorkflowRoutesOptions {
  catalog: WorkflowCatalog;
}

/**
 * Reading workflow definitions: `GET /api/workflows` and `GET /api/workflows/{name}`. Both go
 * through the shared catalog, which caches parsed files by stat, so a listing costs one
 * directory read and one stat per file and an edit on disk shows on the next request.
 */
const listingJson = new WeakMap<object, string>();

export const workflowRoutes: FastifyPluginAsyncZod<WorkflowRoutesOptions> = async (app, opts) => {
  // The catalog parses on its worker thread (when built): start it, and parse the home's
  // workflows, as the server comes up rather than on its first request.
  app.addHook('onReady', async () => {
    opts.catalog.prefetch().catch((err: unknown) => app.log.warn({ err }, 'workflow.prefetch_failed'));
  });
  app.addHook('onClose', async () => opts.catalog.close());

  app.get(
    '/api/workflows',
    {
      schema: {
        tags: ['workflows'],
        summary: 'List the workflows visible from a project',
        description:
          'Without cwd: bundled and home-scoped workflows only (there are no registered codebases to ' +
          'fall back on). With cwd: the project’s .cairn/workflows and .archon/workflows too, ' +
          'overriding lower scopes by file name. recommended comes from the project config ' +
          '(workflows.recommended, or upstream’s recommendedWorkflows), filtered to discovered names ' +
          'in declared order; [] without cwd. errors lists files that did not load and is omitted ' +
          'when there are none; parseWarnings belong to workflows that did load. configWarnings names ' +
          'each key of the project config file Cairn does not read (omitted when there are none).',
        querystring: workflowCwdQuerySchema,
        response: { 200: workflowListResponseSchema, 400: errorBodySchema },
      },
    },
    async (req, reply) => {
      const cwd = await resolveRunCwd(req.query.cwd);
      const result = await opts.catalog.listAsync({ cwd });
      // The catalog hands back the same result object while no file changed, so its JSON (about
      // 4 KB a workflow) is built once per change, not once per request.
      let json = listingJson.get(result);
      if (json === undefined) {
        // The contract marks `errors` optional: a clean discovery leaves the key out.
        const body: WorkflowListResponse = { workflows: result.workflows, recommended: result.recommended };
        if (result.errors.length > 0) body.errors = result.errors;
        if (result.configWarnings.length > 0) body.configWarnings = result.configWarnings;
        json = JSON.stringify(body);
        listingJson.set(result, json);
      }
      // A string payload is sent as it is (no second serialization).
      return reply.type('application/json; charset=utf-8').send(json as never);
    },
  );

  app.get(
    '/api/workflows/:name',
    {
      schema: {
        tags: ['workflows'],
        summary: 'One workflow by name',
        description:
          'Searches the project under cwd, then the home scope, then the bundled workflows. 404 ' +
          'Workflow not found: <name>; 400 WORKFLOW_INVALID when the file that declares the name (or, ' +
          'when its name cannot be read, the file of that name) does not load: error names the file ' +
          "(Workflow file is invalid: '<name>' is declared in <file> (<source>), which did not load) " +
          'and errors lists its problems. The name runs is the run list, not a workflow.',
        params: workflowNameParamsSchema,
        querystring: workflowCwdQuerySchema,
        response: { 200: workflowResponseSchema, 400: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (req) => {
      const cwd = await resolveRunCwd(req.query.cwd);
      return lookupWorkflow(opts.catalog, req.params.name, { cwd });
    },
  );
};
