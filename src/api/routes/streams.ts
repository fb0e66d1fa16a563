import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DASHBOARD_STREAM_KEY } from '../../shared/conversation-id.js';
import type { Store } from '../../store/store.js';
import { streamPayloadSchema, streamResumeHeadersSchema, streamResumeQuerySchema } from '../../wire/stream-frames.js';
import type { SseHub, StreamRequest } from '../sse/sse-hub.js';

export interface StreamRoutesOptions {
  hub: SseHub;
  /** Where a resume point is checked against the newest event. */
  events: Pick<Store, 'lastEventSeq'>;
}

const streamDescription =
  'Server-Sent Events. The first frame is `data: {"type":"heartbeat","timestamp":<ms>}`; then ' +
  'every durable event as `id: <seq>` + `data: <json>` (types workflow_status, dag_node, ' +
  'workflow_event); a `: heartbeat` comment every 15 s. Reconnect with Last-Event-ID (or ' +
  '?lastEventId=) to receive exactly the events missed; ?lastEventId=0 replays the whole history. ' +
  'An id beyond the newest event (a database that was reset) resumes from the newest: the stream ' +
  'continues with the next event written. Without either, the stream starts with the next event written. ' +
  'Past the cap on open streams (in all: CAIRN_MAX_STREAMS; from one client address: CAIRN_MAX_STREAMS_PER_CLIENT; ' +
  'by default derived from the API process’s open-file limit) the answer is 503 STREAM_LIMIT_REACHED with Retry-After.';

/**
 * Opens an SSE response on the raw socket; fastify no longer manages this reply. Past a stream
 * cap the request is refused (503, Retry-After) before anything is written.
 */
async function openStream(hub: SseHub, req: FastifyRequest, reply: FastifyReply, request: StreamRequest): Promise<void> {
  await hub.start();
  const address = clientAddress(req);
  hub.admit(address);
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  const client = hub.open(res, request, address);
  // A socket error ends this stream only; the client reconnects with Last-Event-ID.
  res.on('error', () => client.close('client_gone'));
  if (res.destroyed) client.close('client_gone');
  else res.once('close', () => client.close('client_gone'));
}

/** The address a stream is counted under: the socket's peer, an IPv4 one without its `::ffff:` prefix. */
function clientAddress(req: FastifyRequest): string {
  const address = req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}

/**
 * Where the stream resumes: after the id the client gives (the header wins over the query). An
 * id beyond the newest event cannot be one this database handed out (it was reset, or the client
 * talked to another server); taken as is, every later event up to that id would be suppressed.
 * Like a Kafka consumer whose offset is out of range (`auto.offset.reset=latest`), the stream
 * then resumes from the newest event. A 400 would not do: EventSource gives up for good on any
 * answer but 200, so a dashboard left open across a reset would stop updating.
 */
async function resumePoint(
  events: StreamRoutesOptions['events'],
  log: FastifyBaseLogger,
  header: string | undefined,
  query: string | undefined,
): Promise<number | undefined> {
  const raw = header ?? query;
  if (raw === undefined) return undefined;
  const requested = Number(raw);
  if (requested === 0) return 0;
  const newest = await events.lastEventSeq();
  if (requested <= newest) return requested;
  log.warn({ requested, newest }, 'sse.resume_clamped');
  return newest;
}

// Only the 200 is described: `produces` applies to every listed status, and a refused stream
// (400, a bad Last-Event-ID) answers JSON like every other error.
const frameResponse = {
  200: streamPayloadSchema.describe('One frame payload (text/event-stream)'),
};

/** What both stream routes share: resume headers/query, SSE framing, the frame schema. */
const streamSchema = {
  tags: ['streams'],
  description: streamDescription,
  headers: streamResumeHeadersSchema,
  querystring: streamResumeQuerySchema,
  produces: ['text/event-stream'],
  response: frameResponse,
};

/** `GET /api/stream/__dashboard__` (every run event) and `GET /api/stream/{conversationId}`. */
export const streamRoutes: FastifyPluginAsyncZod<StreamRoutesOptions> = async (app, { hub, events }) => {
  app.get(
    `/api/stream/${DASHBOARD_STREAM_KEY}`,
    { schema: { ...streamSchema, summary: 'Live events of every run (dashboard)' } },
    async (req, reply) => {
      const afterSeq = await resumePoint(events, req.log, req.headers['last-event-id'], req.query.lastEventId);
      await openStream(hub, req, reply, { conversationId: undefined, afterSeq });
    },
  );

  app.get(
    '/api/stream/:conversationId',
    {
      schema: {
        ...streamSchema,
        summary: 'Live events of one conversation’s runs',
        params: z.object({
          conversationId: z
            .string()
            .min(1)
            .max(200)
            .regex(/^[\w.:-]+$/, { error: 'Invalid conversation ID' })
            .describe('The conversationId given (or generated) when the runs were started'),
        }),
      },
    },
    async (req, reply) => {
      const afterSeq = await resumePoint(events, req.log, req.headers['last-event-id'], req.query.lastEventId);
      await openStream(hub, req, reply, { conversationId: req.params.conversationId, afterSeq });
    },
  );
};
