import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { diffBetween, mergeBase, resolveCommit } from '../../codebases/worktree-diff.js';
import { runErrorText } from '../../runs/run-texts.js';
import { CairnError } from '../../shared/errors.js';
import { isRunEvent, type RunEvent } from '../../store/schemas/event.js';
import type { Store } from '../../store/store.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { runDiffQuerySchema, runDiffResponseSchema } from '../../wire/run-diff.js';
import { runIdParamsSchema } from '../../wire/runs.js';
import { attemptRange } from '../run-diff/attempt-range.js';
import { findRunWorktree, runWorktreeText } from '../run-diff/run-worktree.js';

/** Events read per step while gathering a run's attempts. */
const READ_STEP = 2000;

async function runEvents(store: Store, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  let after = 0;
  for (;;) {
    const rows = (await store.listEventsAfter(after, READ_STEP, { runId })).filter(isRunEvent);
    events.push(...rows);
    if (rows.length < READ_STEP) return events;
    after = rows.at(-1)!.seq;
  }
}

/**
 * `GET /api/workflows/runs/{runId}/diff`: what the run changed in its worktree, against its base
 * branch (the merge base of the two, to the worktree's files now), or with `attempt` what one
 * node attempt changed (attempt-range.ts says which commits bound it).
 */
export const runDiffRoutes: FastifyPluginAsyncZod<{ store: Store }> = async (app, { store }) => {
  app.get(
    '/api/workflows/runs/:runId/diff',
    {
      schema: {
        tags: ['runs'],
        summary: 'The diff of a run’s worktree against its base branch, or of one attempt',
        description:
          'Without attempt: from the merge base of the run’s branch and its base branch to the worktree’s files as they are ' +
          '(committed or not, new files included). With attempt: from the commit the attempt started on to ' +
          'the commit the next attempt started on (or the worktree now). 404 when the run has no worktree of its own; 409 when ' +
          'it was removed, has no base branch, or the attempt’s commits do not bound its work.',
        params: runIdParamsSchema,
        querystring: runDiffQuerySchema,
        response: { 200: runDiffResponseSchema, 404: errorBodySchema, 409: errorBodySchema },
      },
    },
    async (req) => {
      const run = await store.getRun(req.params.runId);
      if (!run) throw new CairnError('RUN_NOT_FOUND', runErrorText.notFound);
      const worktree = await findRunWorktree(store, run);
      const attemptId = req.query.attempt;
      if (attemptId !== undefined) {
        const range = attemptRange(await runEvents(store, run.id), attemptId);
        if (range.kind === 'unknown') {
          throw new CairnError('NOT_FOUND', `Run ${run.id} has no attempt ${attemptId}: attempt ids are the attemptId of GET /api/workflows/runs/${run.id}/logs`);
        }
        if (range.kind === 'refused') throw new CairnError('RUN_DIFF_UNAVAILABLE', range.reason);
        const diff = await diffBetween(worktree.path, range.from, range.to);
        return { runId: run.id, scope: 'attempt' as const, attemptId, path: range.path, branch: worktree.branch, base: null, ...diff };
      }
      if (!worktree.base) throw new CairnError('RUN_DIFF_UNAVAILABLE', runWorktreeText.noBase(run.id, worktree.branch));
      const [baseCommit, head] = await Promise.all([resolveCommit(worktree.path, worktree.base.ref), resolveCommit(worktree.path, 'HEAD')]);
      const from = baseCommit && head ? await mergeBase(worktree.path, baseCommit, head) : undefined;
      if (!from) throw new CairnError('RUN_DIFF_UNAVAILABLE', runWorktreeText.noCommonCommit(run.id, worktree.base.name));
      const diff = await diffBetween(worktree.path, from, null);
      return { runId: run.id, scope: 'run' as const, attemptId: null, path: null, branch: worktree.branch, base: worktree.base.name, ...diff };
    },
  );
};
