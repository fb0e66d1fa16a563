import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { workflowNameParamsSchema } from '../../wire/run-request.js';
import {
  savedWorkflowResponseSchema,
  workflowCwdQuerySchema,
  workflowFileBodySchema,
  workflowFileResponseSchema,
  workflowSaveQuerySchema,
} from '../../wire/workflows.js';
import { resolveRunCwd } from '../run-target/run-cwd.js';
import { saveWorkflowText } from '../workflow-files/workflow-save.js';
import { checkWorkflowSource, workflowSourceOf } from '../workflow-files/workflow-source.js';

export interface WorkflowFileRoutesOptions {
  catalog: WorkflowCatalog;
}

/**
 * A workflow as the text of its file, for an editor that keeps what a definition cannot hold
 * (comments, layout, `include:` as written): `GET /api/workflows/{name}/file` reads the file
 * that declares the workflow, `PUT` writes a text as it is once the workflow it holds is valid,
 * where `PUT /api/workflows/{name}` would (project or home scope).
 */
export const workflowFileRoutes: FastifyPluginAsyncZod<WorkflowFileRoutesOptions> = async (app, opts) => {
  app.get(
    '/api/workflows/:name/file',
    {
      schema: {
        tags: ['workflows'],
        summary: 'The YAML text of the file that declares a workflow',
        description:
          'The file GET /api/workflows/{name} loads (project under cwd, then home, then bundled), as it is ' +
          'on disk: comments, layout and include: as written. 404 Workflow not found: <name>; 400 ' +
          'WORKFLOW_INVALID when that file does not load, as GET /api/workflows/{name} answers.',
        params: workflowNameParamsSchema,
        querystring: workflowCwdQuerySchema,
        response: { 200: workflowFileResponseSchema, 400: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (req) => {
      const cwd = await resolveRunCwd(req.query.cwd);
      const { entry, text } = await opts.catalog.fileTextAsync(req.params.name, { cwd });
      return { name: entry.workflow.name, source: entry.source, filename: entry.filename, text };
    },
  );

  app.put(
    '/api/workflows/:name/file',
    {
      preValidation: checkWorkflowSource,
      schema: {
        tags: ['workflows'],
        summary: 'Save a workflow as the YAML text of its file',
        description:
          'Parses text, checks the workflow it holds as PUT /api/workflows/{name} does, then writes the text ' +
          'as it is (comments and layout kept), atomically, over the file that declares the name in that ' +
          'scope, else <name>.yaml. The text must declare the path’s name (name: <name>). 400 Workflow ' +
          'definition is invalid (errors lists every problem: a YAML error, a missing or other name, what ' +
          'validate finds) writes nothing. Returns the saved workflow as it loads.',
        params: workflowNameParamsSchema,
        querystring: workflowSaveQuerySchema,
        body: workflowFileBodySchema,
        response: { 200: savedWorkflowResponseSchema, 400: errorBodySchema, 413: errorBodySchema, 415: errorBodySchema },
      },
    },
    async (req) => {
      const source = workflowSourceOf(req.query);
      const cwd = await resolveRunCwd(req.query.cwd);
      const saved = await saveWorkflowText(opts.catalog, req.params.name, req.body.text, { cwd, source });
      req.log.info({ workflow: req.params.name, source, filename: saved.filename, cwd: cwd ?? null, text: true }, 'workflow.saved');
      return saved;
    },
  );
};
