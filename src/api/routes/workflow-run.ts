import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { pickRunOverrides } from '../../store/schemas/run-overrides.js';
import type { Store } from '../../store/store.js';
import type { WorkflowCatalog } from '../../workflow/catalog.js';
import { queueRun } from '../../conversations/queue-run.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { checkBranchName } from '../../codebases/branch-name.js';
import { CairnError } from '../../shared/errors.js';
import { resolveRunCodebase, runCodebaseText } from '../run-codebase.js';
import { resolveRunCwd } from '../run-cwd.js';
import { lookupWorkflow } from '../workflow-lookup.js';
import { resolveRunInputs } from '../../workflow/run-inputs.js';
import {
  runQuerySchema,
  runRequestBodySchema,
  runStartResponseSchema,
  workflowNameParamsSchema,
} from '../../wire/run-request.js';

export interface WorkflowRunRoutesOptions {
  store: Store;
  catalog: WorkflowCatalog;
  clock: () => number;
}

/**
 * `POST /api/workflows/{name}/run`. Everything is checked first (cwd, workflow, inputs, config);
 * then one transaction writes the pending run with the definition it will execute and the
 * `start_run` job. The supervisor does the rest.
 */
export const workflowRunRoutes: FastifyPluginAsyncZod<WorkflowRunRoutesOptions> = async (app, opts) => {
  app.post(
    '/api/workflows/:name/run',
    {
      schema: {
        tags: ['workflows'],
        summary: 'Start a run of a workflow',
        description:
          'Finds the workflow by name (project under cwd, then home, then bundled), checks inputs ' +
          '(undeclared names and missing required inputs are refused; omitted ones take their ' +
          'default; {} equals omission) and the inline config, then queues the run. The answer ' +
          'comes before the run starts: follow it with GET /api/workflows/runs/{runId} or the ' +
          'stream /api/stream/{conversationId}. tiers, aliases and config are validated and kept ' +
          'in the run metadata (metadata.overrides); binding them to models comes with the AI ' +
          'engine in a later version. A run on a registered codebase (codebaseId, or a cwd that is its ' +
          'checkout) gets its own git worktree on its own branch, made by the supervisor when the run ' +
          'starts (see docs/worktrees.md).',
        params: workflowNameParamsSchema,
        querystring: runQuerySchema,
        body: runRequestBodySchema,
        response: { 200: runStartResponseSchema, 400: errorBodySchema, 404: errorBodySchema, 413: errorBodySchema },
      },
    },
    async (req) => {
      const body = req.body ?? {};
      const cwd = await resolveRunCwd(req.query.cwd);
      const codebase = await resolveRunCodebase(opts.store, { cwd, codebaseId: body.codebaseId, conversationId: body.conversationId });
      // A run named by codebaseId alone finds the codebase's project workflows, as with its cwd.
      const projectDir = cwd ?? codebase?.checkout;
      const entry = await lookupWorkflow(opts.catalog, req.params.name, { cwd: projectDir });
      const workflow = entry.workflow;
      const inputs = resolveRunInputs(workflow.name, workflow.inputs, body.inputs);
      if (body.branch !== undefined) {
        if (!codebase) throw new CairnError('BRANCH_NAME_INVALID', runCodebaseText.branchWithoutCodebase);
        await checkBranchName(body.branch);
      }
      const run = await queueRun(opts.store, {
        entry,
        inputs,
        message: body.message ?? '',
        workingPath: codebase?.checkout ?? cwd ?? null,
        codebaseId: codebase?.codebaseId ?? null,
        ...(body.branch !== undefined ? { branch: body.branch } : {}),
        conversationId: body.conversationId,
        overrides: pickRunOverrides(body),
        clock: opts.clock,
      });
      const conversationId = run.conversation_id;
      req.log.info(
        { runId: run.id, workflow: workflow.name, source: entry.source, conversationId, cwd: cwd ?? null, codebaseId: codebase?.codebaseId ?? null },
        'run.start_requested',
      );
      return { accepted: true as const, runId: run.id, conversationId, status: 'pending' as const };
    },
  );
};
