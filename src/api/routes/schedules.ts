import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CairnError } from '../../shared/errors.js';
import type { Schedule } from '../../store/schemas/schedule.js';
import type { Store } from '../../store/store.js';
import { scheduledRunOf } from '../../runs/schedule-run.js';
import type { WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import { catchUpMsOf, catchUpText, DEFAULT_CATCH_UP } from '../../workflow/triggers/catch-up.js';
import { cronProblem, nextFireTimes } from '../../workflow/triggers/cron-times.js';
import { resolveRunInputs } from '../../workflow/schema/run-inputs.js';
import { isInteractive, scheduleRefusal } from '../../workflow/schema/interactive.js';
import { errorBodySchema } from '../../wire/error-body.js';
import {
  createScheduleBodySchema, runNowResponseSchema, schedulePreviewBodySchema, schedulePreviewSchema, scheduleDeleteResponseSchema, scheduleDetailSchema, scheduleListResponseSchema,
  scheduleParamsSchema, scheduleViewSchema, type ScheduleView,
} from '../../wire/schedules.js';
import { bindRunToCodebase } from '../run-target/run-codebase.js';
import { lookupWorkflow } from '../workflow-files/workflow-lookup.js';

export interface ScheduleRoutesOptions {
  store: Store;
  catalog: WorkflowCatalog;
  clock: () => number;
}

const refusals = { 400: errorBodySchema, 404: errorBodySchema };

/**
 * `/api/schedules`: list, create, read (with the next 5 due times and the latest fires), pause,
 * resume, run now, delete. The supervisor's fire loop does the firing; these routes only write
 * the schedule, and run now decides one due time (now) through the same store operation.
 */
export const scheduleRoutes: FastifyPluginAsyncZod<ScheduleRoutesOptions> = async (app, { store, catalog, clock }) => {
  const viewOf = (schedule: Schedule): ScheduleView => ({
    ...schedule,
    next_fire_times: schedule.paused
      ? []
      : nextFireTimes(schedule.cron, schedule.timezone, Math.max(clock(), Date.parse(schedule.cursor_at)), 5).map((d) => d.toISOString()),
  });
  const requireSchedule = async (idOrName: string): Promise<Schedule> => {
    const schedule = await store.getSchedule(idOrName);
    if (!schedule) throw new CairnError('SCHEDULE_NOT_FOUND', `No schedule has the id or name '${idOrName}'; list them with GET /api/schedules`);
    return schedule;
  };
  const lookup = (name: string, query: { cwd?: string | undefined }) => lookupWorkflow(catalog, name, query);

  app.get(
    '/api/schedules',
    { schema: { tags: ['schedules'], summary: 'Every schedule, by name, with its next 5 due times', response: { 200: scheduleListResponseSchema } } },
    async () => ({ schedules: (await store.listSchedules()).map(viewOf) }),
  );

  app.post(
    '/api/schedules/preview',
    {
      schema: {
        tags: ['schedules'],
        summary: 'The next 5 due times of a cron expression and zone, before a schedule is made',
        description:
          'Reads the expression and the zone as creating a schedule would (a form shows the due times as they are typed). ' +
          'One that cannot be used is not a bad request: the answer says why in `problem`, with no due times.',
        body: schedulePreviewBodySchema,
        response: { 200: schedulePreviewSchema },
      },
    },
    async (req) => {
      const timezone = req.body.timezone ?? 'UTC';
      const cron = req.body.cron.trim();
      const problem = cron === '' ? 'cron is empty: write five fields (minute hour day month weekday, e.g. \'0 3 * * *\')' : cronProblem(cron, timezone);
      if (problem) return { next_fire_times: [], problem };
      return { next_fire_times: nextFireTimes(cron, timezone, clock(), 5).map((d) => d.toISOString()), problem: null };
    },
  );

  app.post(
    '/api/schedules',
    {
      schema: {
        tags: ['schedules'],
        summary: 'Create a schedule',
        description:
          'Checks the cron expression and time zone (croner, IANA names), the catch-up window, the codebase, the workflow ' +
          '(found as a run request finds it; an interactive one is refused) and the inputs, then stores the schedule; its first due time is the first ' +
          'after now. The supervisor starts its runs. docs/schedules.md says what overlap and catch-up do.',
        body: createScheduleBodySchema,
        response: { 201: scheduleViewSchema, ...refusals, 409: errorBodySchema },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const timezone = body.timezone ?? 'UTC';
      const problem = cronProblem(body.cron, timezone);
      if (problem) throw new CairnError('VALIDATION_FAILED', problem);
      const catchUp = body.catchUp ?? DEFAULT_CATCH_UP;
      const catchUpMs = catchUpMsOf(catchUp);
      if (catchUpMs === undefined) throw new CairnError('VALIDATION_FAILED', catchUpText(catchUp).replace(/^catch_up/, 'catchUp'));
      const codebase = body.codebaseId !== undefined ? await bindRunToCodebase(store, body.codebaseId) : undefined;
      const entry = await lookup(body.workflow, { cwd: codebase?.checkout });
      if (isInteractive(entry.workflow)) throw new CairnError('VALIDATION_FAILED', `Cannot schedule: ${scheduleRefusal(entry.workflow.name)}`);
      resolveRunInputs(entry.workflow.name, entry.workflow.inputs, { text: body.inputs });
      const schedule = await store.createSchedule({
        id: randomUUID(), name: body.name, workflowName: entry.workflow.name, codebaseId: codebase?.codebaseId ?? null,
        inputs: body.inputs ?? {}, cron: body.cron, timezone, overlap: body.overlap ?? 'skip', catchUpMs, paused: body.paused ?? false,
      });
      req.log.info({ scheduleId: schedule.id, name: schedule.name, workflow: schedule.workflow_name }, 'schedule.created');
      return reply.code(201).send(viewOf(schedule));
    },
  );

  app.get(
    '/api/schedules/:id',
    {
      schema: {
        tags: ['schedules'], summary: 'One schedule (by id or name), its next 5 due times and its latest fires',
        params: scheduleParamsSchema, response: { 200: scheduleDetailSchema, ...refusals },
      },
    },
    async (req) => {
      const schedule = await requireSchedule(req.params.id);
      return { ...viewOf(schedule), fires: await store.listScheduleFires(schedule.id, 20) };
    },
  );

  for (const [action, paused] of [['pause', true], ['resume', false]] as const) {
    app.post(
      `/api/schedules/:id/${action}`,
      {
        schema: {
          tags: ['schedules'],
          summary: paused ? 'Pause a schedule: its due times pass without runs' : 'Resume a schedule: due times from now on run',
          description: paused ? 'Idempotent.' : 'Idempotent. The time it was paused is not caught up.',
          params: scheduleParamsSchema, response: { 200: scheduleViewSchema, ...refusals },
        },
      },
      async (req) => {
        const schedule = await requireSchedule(req.params.id);
        const changed = await store.setSchedulePaused(schedule.id, paused);
        if (!changed) throw new CairnError('SCHEDULE_NOT_FOUND', `Schedule '${req.params.id}' was deleted meanwhile`);
        req.log.info({ scheduleId: schedule.id }, paused ? 'schedule.paused' : 'schedule.resumed');
        return viewOf(changed);
      },
    );
  }

  app.post(
    '/api/schedules/:id/run-now',
    {
      schema: {
        tags: ['schedules'],
        summary: 'Start a run of the schedule now',
        description:
          'Decided like a due time (the overlap policy applies: with skip and a run still open, nothing starts and the ' +
          'fire says skipped), also while the schedule is paused. The answer comes before the run starts.',
        params: scheduleParamsSchema, response: { 200: runNowResponseSchema, ...refusals },
      },
    },
    async (req) => {
      const schedule = await requireSchedule(req.params.id);
      const now = new Date(clock()).toISOString();
      const made = await scheduledRunOf({ store, lookup, clock }, schedule, now, true);
      if (!('run' in made)) {
        throw new CairnError('VALIDATION_FAILED', `Schedule '${schedule.name}' cannot start a run: ${'failure' in made ? made.failure : made.skip}`);
      }
      const answer = await store.admitScheduleFire({ scheduleId: schedule.id, dueAt: now, now, manual: true, run: made.run });
      if (!answer.decided) {
        if (answer.why === 'not_found') throw new CairnError('SCHEDULE_NOT_FOUND', `Schedule '${req.params.id}' was deleted meanwhile`);
        throw new CairnError('VALIDATION_FAILED', `A run-now of schedule '${schedule.name}' was decided at this very moment already; try again`);
      }
      req.log.info({ scheduleId: schedule.id, outcome: answer.fire.outcome, runId: answer.fire.run_id }, 'schedule.run_now');
      return { fire: answer.fire, runId: answer.fire.run_id, cancelled: answer.cancelled };
    },
  );

  app.delete(
    '/api/schedules/:id',
    {
      schema: {
        tags: ['schedules'],
        summary: 'Delete a schedule and its fire history (its runs stay)',
        description: 'A schedule a workflow file declares (origin workflow) is refused with 409: remove its trigger from the file, or pause it.',
        params: scheduleParamsSchema, response: { 200: scheduleDeleteResponseSchema, ...refusals, 409: errorBodySchema },
      },
    },
    async (req) => {
      const schedule = await requireSchedule(req.params.id);
      if (schedule.origin === 'workflow') {
        throw new CairnError(
          'SCHEDULE_DECLARED',
          `Schedule '${schedule.name}' is declared in the triggers: of workflow '${schedule.workflow_name}'; remove the trigger from the file, or pause the schedule`,
        );
      }
      if (!(await store.deleteSchedule(schedule.id))) throw new CairnError('SCHEDULE_NOT_FOUND', `Schedule '${req.params.id}' was deleted meanwhile`);
      req.log.info({ scheduleId: schedule.id }, 'schedule.deleted');
      return { deleted: true as const, id: schedule.id };
    },
  );
};
