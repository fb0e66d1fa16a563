import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CairnError } from '../../shared/errors.js';
import type { Job, JobKind } from '../../store/schemas/job.js';
import { terminalRunStatuses, type Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import type { WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { runAbandonResponseSchema, runIdParamsSchema, runOperationResponseSchema, runResumeBodySchema } from '../../wire/runs.js';
import { awaitJob, awaitTypedJob, JOB_ANSWER_WAIT_MS } from '../waits/await-job.js';
import type { ResumeRunResult } from '../../store/schemas/job-results.js';
import { lookupWorkflow } from '../workflow-files/workflow-lookup.js';
import { runErrorText } from '../../runs/run-texts.js';
import { awaitRunsEnded } from '../waits/await-runs-ended.js';
import { abandonableRunStatuses, requestResume, resumableRunStatuses, reloadedDefinition } from '../../runs/run-operations.js';

export interface RunOperationRoutesOptions {
  store: Store;
  catalog: WorkflowCatalog;
  /** How long an answer waits for the supervisor to carry the operation out (tests shorten it). */
  answerWaitMs?: number;
}

/** Run ids are UUIDs; anything that is not one plain path segment is refused before any lookup. */
const runIdPattern = /^[A-Za-z0-9_-]+$/;


/**
 * Resume, abandon and delete. Each checks that the operation applies to the run's status (a 4xx
 * naming the status when it does not), queues a job, and answers once the supervisor has carried
 * it out (at most `answerWaitMs`; past that the job stays queued and the answer says so). The API
 * never changes run state itself.
 */
export const runOperationRoutes: FastifyPluginAsyncZod<RunOperationRoutesOptions> = async (app, opts) => {
  const { store } = opts;
  const waitMs = opts.answerWaitMs ?? JOB_ANSWER_WAIT_MS;

  async function requireRun(runId: string): Promise<Run> {
    if (!runIdPattern.test(runId)) throw new CairnError('VALIDATION_FAILED', runErrorText.invalidId);
    const run = await store.getRun(runId);
    if (!run) throw new CairnError('RUN_NOT_FOUND', runErrorText.notFound);
    return run;
  }

  /**
   * Queues the job and waits for it. A job the supervisor ignored (the run changed state in the
   * meantime) is refused as the status check would have refused it, with the status it has now.
   */
  async function carryOut(
    kind: JobKind,
    run: Run,
    payload: Record<string, unknown>,
    refusal: (status: string) => string,
  ): Promise<'done' | 'queued'> {
    return awaitCarriedOut(await store.enqueueJob(kind, run.id, payload), run, refusal);
  }

  async function awaitCarriedOut(job: Job, run: Run, refusal: (status: string) => string): Promise<'done' | 'queued'> {
    const kind = job.kind;
    const outcome = await awaitJob(store, job.id, waitMs);
    if (outcome.state === 'open') return 'queued';
    if (outcome.state === 'gone') return 'done';
    if (outcome.result.startsWith('ignored')) {
      const now = await store.getRun(run.id);
      if (!now) throw new CairnError('RUN_NOT_FOUND', runErrorText.notFound);
      throw new CairnError('RUN_INVALID_STATE', refusal(now.status));
    }
    if (outcome.result.startsWith('failed')) {
      const now = await store.getRun(run.id);
      throw new CairnError('INTERNAL', `The supervisor could not carry out the ${kind.replace('_run', '')}: ${now?.error ?? outcome.result}`);
    }
    return 'done';
  }

  /**
   * Waits for a resume job, and answers from its typed result: the run resumed or waits for a
   * place (the message says which), or the resume is refused as the status check or the
   * concurrency policy would have refused it when asked.
   */
  async function awaitResume(job: Job & { kind: 'resume_run' }, run: Run): Promise<string> {
    const outcome = await awaitTypedJob(store, job, waitMs);
    if (outcome.state === 'open') return `Resume of workflow ${run.workflow_name} queued: the supervisor resumes it when it is running.`;
    // The run went (deleted) with its job once the supervisor had carried it out.
    if (outcome.state === 'gone') return resumeAnswer({ outcome: 'resumed' }, run);
    return resumeAnswer(outcome.result, run);
  }

  async function resumeAnswer(result: ResumeRunResult, run: Run): Promise<string> {
    switch (result.outcome) {
      case 'resumed':
        return `Resumed workflow ${run.workflow_name}: nodes that already succeeded are not run again.`;
      case 'waiting':
        return (
          `Resume of workflow ${run.workflow_name} waits for a place of its concurrency key ${JSON.stringify(result.key)}: it is pending, ` +
          `number ${result.position} in line behind ${result.waitingFor.join(', ') || 'the runs ahead of it'}, and goes on from where it stopped once a place frees.`
        );
      // Refused once the supervisor came to it (a place was taken meanwhile): the run is left as it was.
      case 'refused':
        throw new CairnError('CONCURRENCY_LIMIT_REACHED', result.reason, { key: result.key, runs: result.holders });
      case 'ignored': {
        const now = await store.getRun(run.id);
        if (!now) throw new CairnError('RUN_NOT_FOUND', runErrorText.notFound);
        throw new CairnError('RUN_INVALID_STATE', runErrorText.cannotResume(now.status));
      }
      case 'failed': {
        const now = await store.getRun(run.id);
        throw new CairnError('INTERNAL', `The supervisor could not carry out the resume: ${now?.error ?? result.reason}`);
      }
    }
  }

  /** The parent left paused as blocked on this run, which abandoning it strands. */
  async function blockedParentOf(run: Run): Promise<string | null> {
    if (run.parent_run_id === null) return null;
    const parent = await store.getRun(run.parent_run_id);
    const approval = parent?.metadata.approval;
    return parent?.status === 'paused' && approval?.type === 'child_workflow' && approval.childRunId === run.id ? parent.id : null;
  }

  const responses = { 400: errorBodySchema, 404: errorBodySchema, 500: errorBodySchema };
  const resumeResponses = { ...responses, 409: errorBodySchema };

  app.post(
    '/api/workflows/runs/:runId/resume',
    {
      schema: {
        tags: ['runs'],
        summary: 'Resume a failed or paused run',
        description:
          'Continues the same run id. Nodes with a durable success are not run again (each gets a ' +
          'node_skipped_prior_success event with its output); always_run nodes are reset and run; a ' +
          'node whose dependency ran again with another output is invalidated and runs; failed and ' +
          'skipped nodes run (are decided) again. The run executes its own copy of the workflow, its command files and its ' +
          'scripts, taken when it started: editing or deleting them on disk changes nothing for it. With ' +
          '`{ "reload": true }` (Cairn extension) the resume takes them as they are on disk now and records a workflow_reloaded ' +
          'event with the content hashes that changed; 400 WORKFLOW_INVALID naming the problems when the file no longer loads, ' +
          '404 WORKFLOW_NOT_FOUND when no file declares the workflow any more (nothing is queued either way). Inputs and run ' +
          'metadata of the first start are reused. For a run paused by its budget (Cairn extension): ' +
          '`{ "budgetUsd": n }` raises its budget (metadata.budget.usd) as it resumes; without it the run resumes with ' +
          'the same budget and pauses again before its next AI attempt. 400 when the run is not failed or paused, or ' +
          'budgetUsd is given for a run that is not paused by its own budget (a run paused by the budget of a run above it ' +
          'names that run: resume it instead), and when a cancel or abandon of the run is queued (the run ends cancelled). ' +
          'A failed run holds no place of its workflow\'s concurrency key: the resume is admitted like a new start (queue: it waits ' +
          'pending; cancel_other: the oldest holder is cancelled; refuse: 409 CONCURRENCY_LIMIT_REACHED, the run left as it was).',
        params: runIdParamsSchema,
        body: runResumeBodySchema,
        response: { 200: runOperationResponseSchema, ...resumeResponses },
      },
    },
    async (req) => {
      const run = await requireRun(req.params.runId);
      if (!resumableRunStatuses.includes(run.status)) throw new CairnError('RUN_INVALID_STATE', runErrorText.cannotResume(run.status));
      const budgetUsd = req.body?.budgetUsd;
      if (budgetUsd !== undefined && (run.status !== 'paused' || !run.metadata.budget_pause)) {
        throw new CairnError('RUN_INVALID_STATE', runErrorText.budgetNotPaused(run.status));
      }
      const budgetRunId = run.metadata.budget_pause?.budget_run_id;
      if (budgetUsd !== undefined && budgetRunId !== undefined && budgetRunId !== run.id) {
        throw new CairnError('RUN_INVALID_STATE', runErrorText.budgetOfAnotherRun(budgetRunId));
      }
      // The run's copy runs, unless the resume asks to take the files as they are now (checked
      // here: a file that no longer loads is refused before anything is queued).
      const reload = req.body?.reload === true;
      const definition = reload ? await reloadedDefinition(store, (name, query) => lookupWorkflow(opts.catalog, name, query), run) : undefined;
      const payload = { ...(reload ? { definition, reload: true } : {}), ...(budgetUsd !== undefined ? { budgetUsd } : {}) };
      // Queued only while it applies: never behind a cancel or abandon that will end the run.
      const job = await requestResume(store, run.id, payload);
      const message = await awaitResume({ ...job, kind: 'resume_run' }, run);
      req.log.info({ runId: run.id, from: run.status }, 'run.resume_requested');
      return { success: true as const, message };
    },
  );

  app.post(
    '/api/workflows/runs/:runId/abandon',
    {
      schema: {
        tags: ['runs'],
        summary: 'Abandon a running, paused or failed run',
        description:
          'Ends the run for good: its status becomes cancelled, so it can no longer be resumed. A ' +
          'running run is stopped as a cancel stops it (its nodes’ process groups are killed first). ' +
          'cascadeFailures counts descendant runs that could not be cancelled and blockedParentRunId ' +
          'names a paused parent the run strands. Every descendant run (child runs of workflow: nodes, ' +
          'their children ...) that has not ended is cancelled with it.',
        params: runIdParamsSchema,
        response: { 200: runAbandonResponseSchema, ...responses },
      },
    },
    async (req) => {
      const run = await requireRun(req.params.runId);
      if (!abandonableRunStatuses.includes(run.status)) throw new CairnError('RUN_INVALID_STATE', runErrorText.cannotAbandon(run.status));
      const blockedParentRunId = await blockedParentOf(run);
      const descendants = await store.listOpenDescendants(run.id);
      const started = Date.now();
      const done = await carryOut('abandon_run', run, {}, runErrorText.cannotAbandon);
      // The cascade cancels every descendant that had not ended; one still open when the answer
      // is due could not be reached (yet).
      const unreached = done === 'done' ? await awaitRunsEnded(store, descendants.map((d) => d.id), Math.max(0, waitMs - (Date.now() - started))) : [];
      req.log.info({ runId: run.id, from: run.status, done, descendants: descendants.length, unreached: unreached.length }, 'run.abandon_requested');
      return {
        success: true as const,
        message:
          done === 'done'
            ? `Abandoned workflow ${run.workflow_name}: the run is cancelled.`
            : `Abandon of workflow ${run.workflow_name} queued: the run is cancelled once the supervisor has stopped it.`,
        cascadeFailures: unreached.length,
        blockedParentRunId,
      };
    },
  );

  app.delete(
    '/api/workflows/runs/:runId',
    {
      schema: {
        tags: ['runs'],
        summary: 'Delete a finished run',
        description:
          'Removes a completed, failed or cancelled run with its events and its folder under the ' +
          'Cairn home (scratch working directory and artifacts); a project directory the run worked ' +
          'in is left alone. 400 while the run is pending, running or paused: cancel it first.',
        params: runIdParamsSchema,
        response: { 200: runOperationResponseSchema, ...responses },
      },
    },
    async (req) => {
      const run = await requireRun(req.params.runId);
      if (!terminalRunStatuses.includes(run.status)) throw new CairnError('RUN_INVALID_STATE', runErrorText.cannotDelete(run.status));
      const done = await carryOut('delete_run', run, {}, runErrorText.cannotDelete);
      req.log.info({ runId: run.id, status: run.status, done }, 'run.delete_requested');
      return {
        success: true as const,
        message:
          done === 'done'
            ? `Deleted workflow run ${run.id} (${run.workflow_name}) and its events.`
            : `Delete of workflow run ${run.id} queued: the supervisor removes it when it is running.`,
      };
    },
  );
};
