import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { streamPayloadSchema } from '../sse/frames.js';
import type { SseHub, StreamRequest } from '../sse/sse-hub.js';

export interface StreamRoutesOptions {
  hub: SseHub;
}

export const DASHBOARD_STREAM = '__dashboard__';

const seqText = (field: string) =>
  z.string().regex(/^\d+$/, { error: `${field} must be a non-negative integer (the seq of the last event received)` });

const resumeHeadersSchema = z.looseObject({
  'last-event-id': seqText('Last-Event-ID')
    .optional()
    .describe('Replay the events after this seq that belong to the stream, then continue live'),
});
const resumeQuerySchema = z.object({
  lastEventId: seqText('lastEventId')
    .optional()
    .describe('Same as the Last-Event-ID header, for clients that cannot set headers (the header wins)'),
});

const streamDescription =
  'Server-Sent Events. The first frame is `data: {"type":"heartbeat","timestamp":<ms>}`; then ' +
  'every durable event as `id: <seq>` + `data: <json>` (types workflow_status, dag_node, ' +
  'workflow_event); a `: heartbeat` comment every 15 s. Reconnect with Last-Event-ID (or ' +
  '?lastEventId=) to receive exactly the events missed; ?lastEventId=0 replays the whole history. ' +
  'Without either, the stream starts with the next event written.';

/** Opens an SSE response on the raw socket; fastify no longer manages this reply. */
async function openStream(hub: SseHub, reply: FastifyReply, request: StreamRequest): Promise<void> {
  await hub.start();
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  const client = hub.open(res, request);
  // A socket error ends this stream only; the client reconnects with Last-Event-ID.
  res.on('error', () => client.close('client_gone'));
  if (res.destroyed) client.close('client_gone');
  else res.once('close', () => client.close('client_gone'));
}

function afterSeqOf(header: string | undefined, query: string | undefined): number | undefined {
  const raw = header ?? query;
  return raw === undefined ? undefined : Number(raw);
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
  headers: resumeHeadersSchema,
  querystring: resumeQuerySchema,
  produces: ['text/event-stream'],
  response: frameResponse,
};

/** `GET /api/stream/__dashboard__` (every run event) and `GET /api/stream/{conversationId}`. */
export const streamRoutes: FastifyPluginAsyncZod<StreamRoutesOptions> = async (app, { hub }) => {
  app.get(
    `/api/stream/${DASHBOARD_STREAM}`,
    { schema: { ...streamSchema, summary: 'Live events of every run (dashboard)' } },
    async (req, reply) => {
      const afterSeq = afterSeqOf(req.headers['last-event-id'], req.query.lastEventId);
      await openStream(hub, reply, { conversationId: undefined, afterSeq });
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
      const afterSeq = afterSeqOf(req.headers['last-event-id'], req.query.lastEventId);
      await openStream(hub, reply, { conversationId: req.params.conversationId, afterSeq });
    },
  );
};
