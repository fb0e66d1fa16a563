import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Store } from '../../store/store.js';
import { dashboardQuerySchema, dashboardResponseSchema } from '../../wire/dashboard.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { clampRunListLimit } from '../../wire/runs.js';
import { toRunView } from '../views/run-view.js';

export interface DashboardRoutesOptions {
  store: Store;
}

/** `GET /api/dashboard/runs`: upstream's Command Center page of runs with totals. */
export const dashboardRoutes: FastifyPluginAsyncZod<DashboardRoutesOptions> = async (app, { store }) => {
  app.get(
    '/api/dashboard/runs',
    {
      schema: {
        tags: ['runs'],
        summary: 'Runs for the dashboard: filtered, searched, paged, with totals and counts per status',
        description:
          'Newest first. Filters combine (AND); counts apply every filter but status, total applies them all. ' +
          'after/before bound the run’s creation time (after inclusive, before exclusive).',
        querystring: dashboardQuerySchema,
        response: { 200: dashboardResponseSchema, 400: errorBodySchema },
      },
    },
    async (req) => {
      const { status, codebaseId, workflow, search, after, before, limit, offset } = req.query;
      const page = await store.listDashboardRuns({
        status,
        codebaseId,
        workflowName: workflow,
        search,
        after,
        before,
        limit: clampRunListLimit(limit),
        offset: offset ?? 0,
      });
      return {
        ...page,
        // The run as every run route shows it (env names only, unreadable keys named), plus its facts.
        runs: page.runs.map((run) => ({ ...run, ...toRunView(run) })),
      };
    },
  );
};
