import { resolve, sep } from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { isInterrupted, readNodeEvent, readPersistedStream } from '../../records/index.js';
import type { PersistedOutput } from '../../records/schemas/node-output.js';
import { CairnError } from '../../shared/errors.js';
import { isRunEvent, type RunEvent } from '../../store/schemas/event.js';
import type { Store } from '../../store/store.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { readLogChunk } from '../run-logs/log-chunk.js';
import {
  RUN_LOG_CHUNK_MAX_BYTES,
  RUN_LOGS_DEFAULT_LIMIT,
  RUN_LOGS_MAX_LIMIT,
  runLogChunkParamsSchema,
  runLogChunkQuerySchema,
  runLogChunkResponseSchema,
  runLogsQuerySchema,
  runLogsResponseSchema,
  type AttemptLog,
} from '../../wire/runs.js';

/**
 * What each finished attempt of a run printed (`cairn run logs`): both streams' stored previews
 * from the attempts' terminal events, and the whole of a stream, a chunk at a time, from its
 * spill file under the run's artifacts (`.cairn/node-outputs/<path>/<attempt>.out|.err`).
 */

/** Events read per scan step while looking for a page of attempts. */
const SCAN_STEP = 500;

type StreamView = AttemptLog['stdout'];

function streamView(text: string, persisted: PersistedOutput | undefined): StreamView {
  return {
    text: persisted?.text ?? text,
    truncated: persisted?.truncated ?? false,
    bytes: persisted?.originalBytes ?? Buffer.byteLength(persisted?.text ?? text),
    spilled: persisted?.spillPath !== undefined,
  };
}

function attemptLogOf(event: RunEvent): AttemptLog | undefined {
  if (event.event_type !== 'node_completed' && event.event_type !== 'node_failed') return undefined;
  let row;
  try {
    row = readNodeEvent(event);
  } catch {
    return undefined; // a row that cannot be read has no logs to show
  }
  if (row?.kind !== 'lifecycle') return undefined;
  const stderr = readPersistedStream(event.data);
  const lifecycle = row.lifecycle;
  return {
    seq: event.seq,
    path: row.path,
    attemptId: row.record?.attempt.id ?? null,
    status: event.event_type === 'node_completed' ? 'completed' : 'failed',
    ...(lifecycle?.status === 'failed' ? { error: lifecycle.error } : {}),
    ...(lifecycle?.status === 'failed' && lifecycle.failureKind ? { failureKind: lifecycle.failureKind } : {}),
    ...(isInterrupted(event.data) ? { interrupted: true as const } : {}),
    stdout: row.output ? streamView(row.output.text, row.output.persisted) : null,
    stderr: stderr ? streamView(stderr.text, stderr) : null,
  };
}

/** The attempt's node matches `node` by path, or by id for a node inside a composed path. */
function matchesNode(path: string, node: string | undefined): boolean {
  return node === undefined || path === node || path.endsWith(`/${node}`);
}

/** A spill file is read only where the worker writes them: the run's own node-outputs folder. */
function isSpillIn(file: string, root: string): boolean {
  return resolve(file) === file && file.startsWith(`${resolve(root)}${sep}`) && /\.(out|err)$/.test(file);
}

export const runLogRoutes: FastifyPluginAsyncZod<{
  store: Store;
  requireRun(runId: string): Promise<{ id: string; codebase_id: string | null }>;
  /** The folder the worker spills a run's streams into: the only place they are read from. */
  spillRoot(run: { id: string; codebase_id: string | null }): string;
}> = async (
  app,
  { store, requireRun, spillRoot },
) => {
  app.get(
    '/api/workflows/runs/:runId/logs',
    {
      schema: {
        tags: ['runs'],
        summary: 'What each finished attempt printed on stdout and stderr, a page at a time',
        description:
          `At most limit attempts per answer (default ${RUN_LOGS_DEFAULT_LIMIT}, at most ${RUN_LOGS_MAX_LIMIT}); ` +
          'each stream holds at most its first 32 KiB. A truncated stream is read whole with ' +
          'logs/{seq}/{stream}. Pass nextAfterSeq as afterSeq until it is null.',
        params: runLogChunkParamsSchema.pick({ runId: true }),
        querystring: runLogsQuerySchema,
        response: { 200: runLogsResponseSchema, 400: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (req) => {
      await requireRun(req.params.runId);
      const limit = Math.min(req.query.limit ?? RUN_LOGS_DEFAULT_LIMIT, RUN_LOGS_MAX_LIMIT);
      const attempts: AttemptLog[] = [];
      let after = req.query.afterSeq ?? 0;
      for (;;) {
        const rows = (await store.listEventsAfter(after, SCAN_STEP, { runId: req.params.runId })).filter(isRunEvent);
        for (const event of rows) {
          after = event.seq;
          const log = attemptLogOf(event);
          if (log && matchesNode(log.path, req.query.node)) attempts.push(log);
          if (attempts.length === limit) return { attempts, nextAfterSeq: after };
        }
        if (rows.length < SCAN_STEP) return { attempts, nextAfterSeq: null };
      }
    },
  );

  app.get(
    '/api/workflows/runs/:runId/logs/:seq/:stream',
    {
      schema: {
        tags: ['runs'],
        summary: 'One stream of one attempt, whole, a chunk of bytes at a time',
        description:
          `At most ${RUN_LOG_CHUNK_MAX_BYTES} bytes per answer; pass nextOffset as offset until it is null. ` +
          'With align=line the chunk starts at the first line that begins at or after offset (the answer’s ' +
          'offset says where): a reader can open the end of a long stream (offset totalBytes - limit) without a cut line. ' +
          'Reads the spill file in the run’s artifacts when the stream was longer than its stored text.',
        params: runLogChunkParamsSchema,
        querystring: runLogChunkQuerySchema,
        response: { 200: runLogChunkResponseSchema, 400: errorBodySchema, 404: errorBodySchema },
      },
    },
    async (req) => {
      const { runId, seq, stream } = req.params;
      const run = await requireRun(runId);
      const [event] = (await store.listEventsAfter(seq - 1, 1, { runId })).filter(isRunEvent);
      const log = event?.seq === seq ? attemptLogOf(event) : undefined;
      if (!event || !log) {
        throw new CairnError('RUN_NOT_FOUND', `No finished attempt at seq ${seq} in run ${runId}: list them with GET /api/workflows/runs/${runId}/logs`);
      }
      const persisted = stream === 'stderr' ? readPersistedStream(event.data) : readNodeEvent(event)?.output?.persisted;
      const stored = stream === 'stderr' ? (log.stderr?.text ?? '') : (log.stdout?.text ?? '');
      const spill = persisted?.spillPath;
      const source = spill !== undefined && isSpillIn(spill, spillRoot(run)) ? spill : Buffer.from(stored, 'utf8');
      const limit = Math.min(req.query.limit ?? RUN_LOG_CHUNK_MAX_BYTES, RUN_LOG_CHUNK_MAX_BYTES);
      return readLogChunk(source, req.query.offset ?? 0, limit, req.query.align);
    },
  );
};
