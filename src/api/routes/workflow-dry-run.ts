import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { resolveModelBinding } from '../../models/model-binding.js';
import { newRunOf } from '../../runs/queue-run.js';
import { readRunModelLayers } from '../../runs/run-model-layers.js';
import type { Settings } from '../../shared/config.js';
import { pickRunOverrides } from '../../store/schemas/run-overrides.js';
import type { Store } from '../../store/store.js';
import { dryRunTraceSchema } from '../../wire/dry-run.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { runQuerySchema, runRequestBodySchema, workflowNameParamsSchema } from '../../wire/run-request.js';
import type { WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import { loadCommand } from '../../workflow/catalog/commands.js';
import { walkDryRun } from '../../workflow/dry-run/dry-run-walk.js';
import { requestUser } from '../callers/identity.js';
import { checkRunRequest } from '../run-target/run-request-check.js';

export interface WorkflowDryRunRoutesOptions {
  store: Store;
  catalog: WorkflowCatalog;
  settings: Pick<Settings, 'paths' | 'providers'>;
  clock: () => number;
}

/**
 * `POST /api/workflows/{name}/dry-run`: the run request of `POST /api/workflows/{name}/run`,
 * checked by the same code (run-request-check.ts), answered with the trace
 * of a walk over the workflow's graph with stubs (workflow/dry-run/). The run a request would
 * create is built (never stored) so that the models bind through the very layers a run binds
 * through. Nothing is written: no run, job, conversation, worktree or file.
 */
export const workflowDryRunRoutes: FastifyPluginAsyncZod<WorkflowDryRunRoutesOptions> = async (app, opts) => {
  app.post(
    '/api/workflows/:name/dry-run',
    {
      schema: {
        tags: ['workflows'],
        summary: 'Walk a workflow with stubs: what a run would do, without running anything',
        description:
          'Takes the JSON body of POST /api/workflows/{name}/run and refuses what that route refuses ' +
          '(an unknown workflow, a missing required input, an unknown codebase or base branch), then ' +
          'walks the workflow’s nodes in a topological order with a stub in place of each node’s work ' +
          'and answers the trace: each node’s kind, dependencies, whether it would run, be skipped ' +
          '(and why) or depends on a value only a run produces, the provider and model an AI node ' +
          'would call (bound as a run binds it: node, workflow, run tiers/aliases, user, repository ' +
          'and install config), and its prompt or body with inputs filled in and stub outputs ' +
          'marked <dry-run output of ID>. Approvals are taken as approved, loops walk one ' +
          'iteration. Nothing is created or run: no run, no job, no worktree, no provider call, no process.',
        params: workflowNameParamsSchema,
        querystring: runQuerySchema,
        body: runRequestBodySchema,
        response: { 200: dryRunTraceSchema, 400: errorBodySchema, 404: errorBodySchema, 413: errorBodySchema },
      },
    },
    async (req) => {
      const body = req.body ?? {};
      const { projectDir, entry, inputs } = await checkRunRequest(opts, req.params.name, req.query, body);
      const workflow = entry.workflow;
      const userId = requestUser(req);
      // The run the request would queue, built and never stored: its metadata holds the run's own model layer.
      const run = newRunOf({
        entry, inputs, message: body.message ?? '', workingPath: projectDir ?? null, overrides: pickRunOverrides(body), userId, clock: opts.clock,
      });
      const layers = await readRunModelLayers({ user_id: run.userId ?? null, metadata: run.metadata }, projectDir ?? null, { store: opts.store, settings: opts.settings });
      const trace = walkDryRun(
        {
          definition: workflow,
          inputs,
          message: run.userMessage,
          variables: {
            ...(body.baseBranch !== undefined ? { BASE_BRANCH: body.baseBranch } : {}),
            ...(body.config?.docs?.path !== undefined ? { DOCS_DIR: body.config.docs.path } : {}),
          },
        },
        {
          // As a run's AI node binds (supervisor/nodes/agent/agent.ts): the node's keys, the workflow's effort.
          bind: (node) => resolveModelBinding({ node: { ...node, effort: node.effort ?? workflow.effort }, workflow, layers }),
          loadCommand: (name) => loadCommand(opts.catalog.locations, projectDir, name),
        },
      );
      req.log.info({ workflow: workflow.name, source: entry.source, nodes: trace.nodes.length }, 'run.dry_run_completed');
      return trace;
    },
  );
};
