import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CairnError } from '../../shared/errors.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { fanOutGridQuerySchema, fanOutGridSchema, fanOutParamsSchema, fanOutRetryResponseSchema } from '../../wire/fan-out.js';
import { runErrorText } from '../../runs/run-texts.js';
import { awaitTypedJob, JOB_ANSWER_WAIT_MS } from '../waits/await-job.js';
import { readFanOutGrid } from '../views/fan-out-grid.js';

/** Run ids are UUIDs; anything that is not one plain path segment is refused before any lookup. */
const runIdPattern = /^[A-Za-z0-9_-]+$/;

/**
 * The fan-out grid (Cairn extension): `GET …/fan-out/{nodeId}` lists a fan-out node's items,
 * paged; `POST …/fan-out/{nodeId}/retry` runs its failed items again in a finished or failed
 * run (a resume that runs that node again: completed items are reused, failed ones run, the
 * join is made again and the nodes after it follow).
 */
export const fanOutRoutes: FastifyPluginAsyncZod<{ store: Store; answerWaitMs?: number }> = async (app, { store, answerWaitMs }) => {
  async function requireRun(runId: string): Promise<Run> {
    if (!runIdPattern.test(runId)) throw new CairnError('VALIDATION_FAILED', runErrorText.invalidId);
    const run = await store.getRun(runId);
    if (!run) throw new CairnError('RUN_NOT_FOUND', runErrorText.notFound);
    return run;
  }
  const responses = { 400: errorBodySchema, 404: errorBodySchema };

  app.get(
    '/api/workflows/runs/:runId/fan-out/:nodeId',
    {
      schema: {
        tags: ['runs'],
        summary: 'List the items of a fan-out node',
        description:
          'Every item of a workflow: node with fan_out, in item order: its status, how many times it started, the ' +
          'duration of its last attempt, its reported cost, the start of its output and its error. Paged with limit and ' +
          'offset (nextOffset); counts are over all items. 404 for a node the run’s workflow does not have, 400 for a ' +
          'node that is not a fan-out.',
        params: fanOutParamsSchema,
        querystring: fanOutGridQuerySchema,
        response: { 200: fanOutGridSchema, ...responses },
      },
    },
    async (req) => readFanOutGrid(store, await requireRun(req.params.runId), req.params.nodeId, req.query),
  );

  app.post(
    '/api/workflows/runs/:runId/fan-out/:nodeId/retry',
    {
      schema: {
        tags: ['runs'],
        summary: 'Run the failed items of a fan-out again',
        description:
          'For a completed or failed run whose fan-out node has failed items: the run is resumed with that node run ' +
          'again; its completed items are reused (child runs and in-run instances alike), only the failed ones run, the ' +
          'node joins again and the nodes after it follow. 400 when the run is still going or no item failed. The run asks for a ' +
          'place of its workflow\'s concurrency key, as a resume does (queue: it waits pending; refuse: 409 CONCURRENCY_LIMIT_REACHED).',
        params: fanOutParamsSchema,
        response: { 200: fanOutRetryResponseSchema, ...responses, 409: errorBodySchema, 500: errorBodySchema },
      },
    },
    async (req) => {
      const run = await requireRun(req.params.runId);
      const { nodeId } = req.params;
      if (run.status !== 'completed' && run.status !== 'failed') {
        throw new CairnError('RUN_INVALID_STATE', `Cannot retry fan-out items of a workflow in '${run.status}' status; wait until it has finished`);
      }
      const grid = await readFanOutGrid(store, run, nodeId, { limit: 1, offset: 0 });
      const retried = grid.counts.failed + grid.counts.cancelled;
      if (retried === 0) throw new CairnError('RUN_INVALID_STATE', `Fan-out node '${nodeId}' has no failed items to retry`);
      const job = await store.enqueueJob('resume_run', run.id, { rerunNodes: [nodeId] });
      const outcome = await awaitTypedJob(store, { ...job, kind: 'resume_run' }, answerWaitMs ?? JOB_ANSWER_WAIT_MS);
      const result = outcome.state === 'done' ? outcome.result : undefined;
      if (result?.outcome === 'ignored') {
        const now = await store.getRun(run.id);
        throw new CairnError('RUN_INVALID_STATE', `Cannot retry fan-out items of a workflow in '${now?.status ?? 'unknown'}' status`);
      }
      if (result?.outcome === 'failed') throw new CairnError('INTERNAL', `The supervisor could not carry out the retry: ${result.reason}`);
      // A completed run holds no place of its concurrency key: the retry asks for one, as a resume does.
      if (result?.outcome === 'refused') throw new CairnError('CONCURRENCY_LIMIT_REACHED', result.reason, { key: result.key, runs: result.holders });
      req.log.info({ runId: run.id, nodeId, retried, state: outcome.state, outcome: result?.outcome }, 'run.fan_out_retry_requested');
      return {
        success: true as const,
        message:
          outcome.state === 'open'
            ? `Retry of ${retried} failed item(s) of '${nodeId}' queued: the run resumes once a supervisor takes it.`
            : result?.outcome === 'waiting'
              ? `Retry of ${retried} failed item(s) of '${nodeId}' waits for a place of its concurrency key ${JSON.stringify(result.key)}: ` +
                `the run is pending, number ${result.position} in line behind ${result.waitingFor.join(', ') || 'the runs ahead of it'}.`
              : `Retrying ${retried} failed item(s) of '${nodeId}': the run is running again.`,
        retried,
      };
    },
  );
};
