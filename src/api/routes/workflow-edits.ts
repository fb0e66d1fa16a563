import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { resolveRunCwd } from '../run-target/run-cwd.js';
import { workflowNameParamsSchema } from '../../wire/run-request.js';
import {
  definitionBodySchema,
  savedWorkflowResponseSchema,
  validateResponseSchema,
  workflowCwdQuerySchema,
  workflowDeleteResponseSchema,
  workflowSaveQuerySchema,
} from '../../wire/workflows.js';
import { bundledWorkflowNames, deleteWorkflow } from '../workflow-files/workflow-delete.js';
import { saveWorkflow } from '../workflow-files/workflow-save.js';
import { checkWorkflowSource, workflowSourceOf } from '../workflow-files/workflow-source.js';

export interface WorkflowEditRoutesOptions {
  catalog: WorkflowCatalog;
}

const bodyErrors = { 400: errorBodySchema, 413: errorBodySchema, 415: errorBodySchema };

/**
 * Checking, saving and deleting workflow definitions: `POST /api/workflows/validate`,
 * `PUT /api/workflows/{name}` and `DELETE /api/workflows/{name}`. Saves and deletes touch only
 * `<cwd>/.cairn/workflows` (source project) and `$CAIRN_HOME/workflows` (source global).
 */
export const workflowEditRoutes: FastifyPluginAsyncZod<WorkflowEditRoutesOptions> = async (app, opts) => {
  const bundledNames = bundledWorkflowNames(opts.catalog.locations);

  app.post(
    '/api/workflows/validate',
    {
      schema: {
        tags: ['workflows'],
        summary: 'Check a workflow definition without saving it',
        description:
          'Always 200 for a definition object: { valid: true }, or { valid: false, errors } listing ' +
          'every problem (missing fields, duplicate ids, unknown depends_on, cycles, exclusive keys, ' +
          'references, when expressions, commands, providers, ...). Keys the engine would ignore are ' +
          'not errors; they show as parseWarnings once the workflow is saved. Optional cwd: check ' +
          'commands, includes and child workflows as the project at cwd sees them. Nothing is written.',
        querystring: workflowCwdQuerySchema,
        body: definitionBodySchema,
        response: { 200: validateResponseSchema, ...bodyErrors },
      },
    },
    async (req) => {
      const cwd = await resolveRunCwd(req.query.cwd);
      const result = await opts.catalog.validateAsync(req.body.definition, { cwd });
      return result.valid ? { valid: true as const } : { valid: false as const, errors: result.errors };
    },
  );

  app.put(
    '/api/workflows/:name',
    {
      preValidation: checkWorkflowSource,
      schema: {
        tags: ['workflows'],
        summary: 'Save a workflow definition',
        description:
          'Validates the definition, then writes it atomically as YAML: over the file that already ' +
          'declares the name in that scope, else <name>.yaml. A definition without name takes the ' +
          'path’s; one naming another workflow is refused. 400 Workflow definition is invalid (errors ' +
          'lists every problem, detail joins them) writes nothing. 400 Invalid workflow source for a ' +
          'source other than project or global. Returns the saved workflow as it loads.',
        params: workflowNameParamsSchema,
        querystring: workflowSaveQuerySchema,
        body: definitionBodySchema,
        response: { 200: savedWorkflowResponseSchema, ...bodyErrors },
      },
    },
    async (req) => {
      const source = workflowSourceOf(req.query);
      const cwd = await resolveRunCwd(req.query.cwd);
      const saved = await saveWorkflow(opts.catalog, req.params.name, req.body.definition, { cwd, source });
      req.log.info({ workflow: req.params.name, source, filename: saved.filename, cwd: cwd ?? null }, 'workflow.saved');
      return saved;
    },
  );

  app.delete(
    '/api/workflows/:name',
    {
      preValidation: checkWorkflowSource,
      schema: {
        tags: ['workflows'],
        summary: 'Delete a user workflow',
        description:
          'Removes the file(s) declaring the name in <cwd>/.cairn/workflows (source project, the ' +
          'default) or $CAIRN_HOME/workflows (source global). 400 Cannot delete bundled default ' +
          'workflow: <name> when the only copy is bundled; 400 for a file under .archon/ (Cairn never ' +
          'changes those); 404 Workflow not found: <name>; 400 Invalid workflow source.',
        params: workflowNameParamsSchema,
        querystring: workflowSaveQuerySchema,
        response: { 200: workflowDeleteResponseSchema, 400: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (req) => {
      const source = workflowSourceOf(req.query);
      const cwd = await resolveRunCwd(req.query.cwd);
      const removed = await deleteWorkflow(opts.catalog, bundledNames, req.params.name, { cwd, source });
      req.log.info({ workflow: req.params.name, source, filename: removed.filename, cwd: cwd ?? null }, 'workflow.deleted');
      return { deleted: true as const, name: req.params.name, ...removed };
    },
  );
};
