import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { RunMetadata } from '../../store/schemas/run-metadata.js';
import { pickRunOverrides } from '../../store/schemas/run-overrides.js';
import type { Store } from '../../store/store.js';
import type { WorkflowCatalog } from '../../workflow/catalog.js';
import { newConversationId } from '../conversation-id.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { checkBranchName } from '../../codebases/branch-name.js';
import { CairnError } from '../../shared/errors.js';
import { resolveRunCodebase, runCodebaseText } from '../run-codebase.js';
import { resolveRunCwd } from '../run-cwd.js';
import { lookupWorkflow } from '../workflow-lookup.js';
import { resolveRunInputs } from '../run-inputs.js';
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
      const codebase = await resolveRunCodebase(opts.store, { cwd, codebaseId: body.codebaseId });
      // A run named by codebaseId alone finds the codebase's project workflows, as with its cwd.
      const projectDir = cwd ?? codebase?.checkout;
      const entry = await lookupWorkflow(opts.catalog, req.params.name, { cwd: projectDir });
      const workflow = entry.workflow;
      const inputs = resolveRunInputs(workflow.name, workflow.inputs, body.inputs);
      if (body.branch !== undefined) {
        if (!codebase) throw new CairnError('BRANCH_NAME_INVALID', runCodebaseText.branchWithoutCodebase);
        await checkBranchName(body.branch);
      }
      const conversationId = body.conversationId ?? newConversationId(opts.clock());
      const overrides = pickRunOverrides(body);
      const metadata: RunMetadata = { workflow_source: entry.source, workflow_filename: entry.filename };
      if (overrides) metadata.overrides = overrides;
      if (entry.parseWarnings) metadata.parse_warnings = entry.parseWarnings;
      if (body.branch !== undefined) metadata.isolation = { branch: body.branch };

      const run = await opts.store.createRun({
        id: randomUUID(),
        workflowName: workflow.name,
        conversationId,
        workingPath: codebase?.checkout ?? cwd ?? null,
        codebaseId: codebase?.codebaseId ?? null,
        userMessage: body.message ?? '',
        inputs,
        metadata,
        definition: workflow,
      });
      req.log.info(
        { runId: run.id, workflow: workflow.name, source: entry.source, conversationId, cwd: cwd ?? null, codebaseId: codebase?.codebaseId ?? null },
        'run.start_requested',
      );
      return { accepted: true as const, runId: run.id, conversationId, status: 'pending' as const };
    },
  );
};
