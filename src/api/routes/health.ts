import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CairnError } from '../../shared/errors.js';
import type { Settings } from '../../shared/config.js';
import type { Store } from '../../store/store.js';
import { concurrencyViewSchema, describeConcurrency } from '../views/concurrency-view.js';
import { statusByCode } from '../errors.js';

export interface HealthRoutesOptions {
  store: Store;
  settings: Pick<Settings, 'maxConcurrency' | 'perRunConcurrency'>;
  version: string;
  clock: () => number;
  /** The SSE streams open now and their caps. */
  streams: () => StreamsView;
}

const streamsViewSchema = z
  .object({
    open: z.number().int().describe('SSE streams open now'),
    max: z.number().int().describe('At most this many at once (CAIRN_MAX_STREAMS, else derived from openFilesLimit)'),
    maxPerClient: z.number().int().describe('At most this many from one client address (CAIRN_MAX_STREAMS_PER_CLIENT)'),
    openFilesLimit: z.number().int().describe('The API process’s open-file limit the caps are kept under'),
  })
  .describe('Cairn extension: the API’s event streams and their caps; past a cap a stream request gets 503 STREAM_LIMIT_REACHED');
export type StreamsView = z.infer<typeof streamsViewSchema>;

const dbHealthSchema = z.object({
  status: z.enum(['ok', 'error']),
  database: z.enum(['connected', 'disconnected']),
  error: z.string().optional().describe('Why the database cannot answer or write, when the store says (a full disk names its folder)'),
});

const apiHealthSchema = z.object({
  status: z.literal('ok'),
  adapter: z.literal('web'),
  version: z.string(),
  runningWorkflows: z.number().int().describe('Runs in status running'),
  concurrency: concurrencyViewSchema,
  streams: streamsViewSchema,
});

/** `/health`, `/health/db` and `/api/health`. */
export const healthRoutes: FastifyPluginAsyncZod<HealthRoutesOptions> = async (app, opts) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        summary: 'Liveness of the API process',
        response: { 200: z.object({ status: z.literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/health/db',
    {
      schema: {
        tags: ['health'],
        summary: 'Whether the database answers and takes writes',
        description:
          '503 with database: disconnected when the database cannot answer a trivial query or commit a ' +
          'trivial write (a full disk); `error` then says why when the store knows.',
        response: { 200: dbHealthSchema, 503: dbHealthSchema },
      },
    },
    async (req, reply) => {
      try {
        await opts.store.ping();
        return { status: 'ok' as const, database: 'connected' as const };
      } catch (err) {
        req.log.warn({ err }, 'api.database_unreachable');
        // A health probe reports the outage in its own body rather than as an error body.
        const known = err instanceof CairnError && err.code === 'STORE_UNAVAILABLE' ? { error: err.message } : {};
        return reply
          .code(statusByCode.STORE_UNAVAILABLE as 503)
          .send({ status: 'error' as const, database: 'disconnected' as const, ...known });
      }
    },
  );

  app.get(
    '/api/health',
    {
      schema: {
        tags: ['health'],
        summary: 'Server status with live concurrency from the supervisor’s heartbeat',
        description:
          'concurrency comes from the freshest supervisor heartbeat. With no live supervisor ' +
          '(none, stopped, or silent for 10 s) the answer is still 200, with supervisor.up false, ' +
          'the configured limits and zero active/queued.',
        response: { 200: apiHealthSchema },
      },
    },
    async () => {
      const [running, heartbeats, turns] = await Promise.all([
        opts.store.countRuns('running'),
        opts.store.listHeartbeats(),
        opts.store.getChatTurnQueue(),
      ]).catch((err: unknown) => {
        throw new CairnError('STORE_UNAVAILABLE', 'Database unavailable', undefined, { cause: err });
      });
      return {
        status: 'ok' as const,
        adapter: 'web' as const,
        version: opts.version,
        runningWorkflows: running,
        concurrency: describeConcurrency(heartbeats, opts.settings, opts.clock(), turns),
        streams: opts.streams(),
      };
    },
  );
};
