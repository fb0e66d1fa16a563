import { join } from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CairnError } from '../../shared/errors.js';
import { runErrorText } from '../../runs/run-texts.js';
import { cancellableRunStatuses, type Run } from '../../store/schemas/run.js';
import { isRunEvent } from '../../store/schemas/event.js';
import type { Store } from '../../store/store.js';
import { errorBodySchema } from '../../wire/error-body.js';
import {
  clampRunEventsLimit,
  clampRunListLimit,
  RUN_EVENTS_DEFAULT_LIMIT,
  RUN_EVENTS_MAX_LIMIT,
  runDetailQuerySchema,
  runDetailResponseSchema,
  runIdParamsSchema,
  runListQuerySchema,
  runListResponseSchema,
  runByWorkerResponseSchema,
  runOperationResponseSchema,
  workerParamsSchema,
} from '../../wire/runs.js';
import { encodeRunCursor } from '../../wire/run-cursor.js';
import { toEventView } from '../views/event-view.js';
import { toRunView } from '../views/run-view.js';
import { runGateRoutes } from './run-gate.js';
import { runLogRoutes } from './run-logs.js';
import type { HomePaths } from '../../shared/paths.js';
import { runArtifactsDir } from '../../codebases/workspace-paths.js';

export interface RunRoutesOptions {
  store: Store;
  /** Where runs keep their artifacts (the logs routes read spilled streams only from there). */
  paths: HomePaths;
}


async function requireRun(store: Store, runId: string): Promise<Run> {
  const run = await store.getRun(runId);
  if (!run) throw new CairnError('RUN_NOT_FOUND', runErrorText.notFound);
  return run;
}

/** Reading runs and asking for a cancel. The API never changes run state itself. */
export const runRoutes: FastifyPluginAsyncZod<RunRoutesOptions> = async (app, { store, paths }) => {
  await app.register(runGateRoutes, { store });
  await app.register(runLogRoutes, {
    store,
    requireRun: (runId: string) => requireRun(store, runId),
    spillRoot: (run) => join(runArtifactsDir(paths, run), '.cairn', 'node-outputs'),
  });
  app.get(
    '/api/workflows/runs',
    {
      schema: {
        tags: ['runs'],
        summary: 'List runs, newest first, a page at a time',
        description:
          'Filters combine (AND). Pass each answer’s nextCursor as cursor until it is null; pages are ' +
          'keyed by run creation, so runs created while you page appear on no later page and shift nothing.',
        querystring: runListQuerySchema,
        response: { 200: runListResponseSchema, 400: errorBodySchema },
      },
    },
    async (req) => {
      const { status, conversationId, workflow, codebaseId, cursor, limit } = req.query;
      const page = await store.listRunPage({
        status,
        conversationId,
        workflowName: workflow,
        codebaseId,
        cursor,
        limit: clampRunListLimit(limit),
      });
      return { runs: page.runs.map(toRunView), nextCursor: page.nextCursor ? encodeRunCursor(page.nextCursor) : null };
    },
  );

  // A static segment: find-my-way matches it before the `:runId` routes, so it never clashes.
  app.get(
    '/api/workflows/runs/by-worker/:platformId',
    {
      schema: {
        tags: ['runs'],
        summary: 'The run of a worker conversation (the newest, when several were attached to it)',
        params: workerParamsSchema,
        response: { 200: runByWorkerResponseSchema, 404: errorBodySchema },
      },
    },
    async (req) => {
      const [run] = await store.listRuns({ conversationId: req.params.platformId, limit: 1 });
      if (!run) throw new CairnError('RUN_NOT_FOUND', runErrorText.noWorkerRun);
      return { run: toRunView(run) };
    },
  );

  app.get(
    '/api/workflows/runs/:runId',
    {
      schema: {
        tags: ['runs'],
        summary: 'A run and its durable events, a page at a time',
        description:
          `Events are ordered by seq, at most limit per answer (default ${RUN_EVENTS_DEFAULT_LIMIT}, ` +
          `at most ${RUN_EVENTS_MAX_LIMIT}). To read them all, pass each answer's nextAfterSeq as ` +
          'afterSeq until it is null. An event whose data.cost_usd is a number also carries ' +
          'cost_scope (own or total).',
        params: runIdParamsSchema,
        querystring: runDetailQuerySchema,
        response: { 200: runDetailResponseSchema, 400: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (req) => {
      const run = await requireRun(store, req.params.runId);
      const limit = clampRunEventsLimit(req.query.limit);
      // One row more than the page says whether another page follows.
      const rows = (await store.listEventsAfter(req.query.afterSeq ?? 0, limit + 1, { runId: run.id })).filter(isRunEvent);
      const events = rows.slice(0, limit);
      const nextAfterSeq = rows.length > limit ? (events.at(-1)?.seq ?? null) : null;
      return { run: toRunView(run), events: events.map(toEventView), nextAfterSeq };
    },
  );

  app.post(
    '/api/workflows/runs/:runId/cancel',
    {
      schema: {
        tags: ['runs'],
        summary: 'Ask for a run to be cancelled',
        description:
          'Allowed while the run is pending, running or paused. The request is queued for the ' +
          'supervisor, which stops the run’s nodes (killing their process groups) and then records ' +
          'the run cancelled; the answer does not wait for that. Watch the run or its stream.',
        params: runIdParamsSchema,
        response: { 200: runOperationResponseSchema, 400: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (req) => {
      const run = await requireRun(store, req.params.runId);
      if (!cancellableRunStatuses.includes(run.status)) {
        throw new CairnError('RUN_INVALID_STATE', runErrorText.cannotCancel(run.status));
      }
      await store.enqueueJob('cancel_run', run.id);
      req.log.info({ runId: run.id, status: run.status }, 'run.cancel_requested');
      return {
        success: true as const,
        message:
          `Cancel requested for workflow ${run.workflow_name}; ` +
          'the run stops once its nodes have ended (status becomes cancelled).',
      };
    },
  );
};
