import { z } from 'zod';
import type { Settings } from '../../shared/config.js';
import type { SupervisorHeartbeat } from '../../store/schemas/heartbeat.js';
import { supervisorHeartbeatSchema } from '../../store/schemas/heartbeat.js';
import { MAX_CONCURRENT_CHAT_TURNS, type ChatTurnQueue } from '../../store/schemas/conversation.js';

/**
 * A heartbeat older than this means the supervisor is gone. Supervisors beat every few seconds;
 * ten seconds tolerates a busy event loop without reporting a dead process as alive for long.
 */
export const SUPERVISOR_STALE_MS = 10_000;

export const supervisorStatusSchema = z.object({
  up: z.boolean().describe('True when the freshest heartbeat is younger than 10 s and not stopped'),
  state: z.union([supervisorHeartbeatSchema.shape.state, z.literal('absent')]),
  id: z.string().nullable(),
  pid: z.number().int().nullable(),
  heartbeatAt: z.string().nullable(),
});

export const concurrencyViewSchema = z.object({
  limit: z.number().int().describe('Global limit on node attempts in flight'),
  maxConcurrent: z.number().int().describe('Chat turns carried out at once, at most (10; upstream web clients read it)'),
  perRunLimit: z.number().int(),
  active: z.number().int().describe('Node attempts in flight now'),
  queued: z.number().int().describe('Ready node attempts waiting for a slot'),
  runs: z.number().int().describe('Runs the supervisor is driving'),
  perProvider: z
    .record(z.string(), z.object({ active: z.number().int(), queued: z.number().int(), limit: z.number().int().optional() }))
    .describe('Per provider: active = slots held (calls in flight, and nodes that hold their provider slot while they wait for a global one), queued = nodes waiting in line for a slot, and the limit from concurrency.providers.<id> (absent: none)'),
  supervisor: supervisorStatusSchema,
  activeConversationIds: z.array(z.string()).describe('Conversations (platform ids) with a chat turn being carried out'),
  queuedTotal: z.number().int().describe('Chat turns waiting (behind a turn of their conversation, or for a slot)'),
  queuedByConversation: z.record(z.string(), z.number().int()).describe('Waiting chat turns by conversation'),
});
export type ConcurrencyView = z.infer<typeof concurrencyViewSchema>;

/** Picks the freshest heartbeat row and reports live concurrency, or idle figures from settings. */
export function describeConcurrency(
  heartbeats: readonly SupervisorHeartbeat[],
  settings: Pick<Settings, 'maxConcurrency' | 'perRunConcurrency'>,
  now: number,
  turns: ChatTurnQueue = { activeConversationIds: [], queuedByConversation: {} },
): ConcurrencyView {
  // Chat turns come from the job queue (durable), node attempts from the heartbeat.
  const chat = {
    activeConversationIds: turns.activeConversationIds,
    queuedTotal: Object.values(turns.queuedByConversation).reduce((sum, n) => sum + n, 0),
    queuedByConversation: turns.queuedByConversation,
  };
  const freshest = heartbeats.reduce<SupervisorHeartbeat | undefined>(
    (best, hb) => (!best || Date.parse(hb.heartbeat_at) > Date.parse(best.heartbeat_at) ? hb : best),
    undefined,
  );
  const up =
    freshest !== undefined &&
    freshest.state !== 'stopped' &&
    now - Date.parse(freshest.heartbeat_at) <= SUPERVISOR_STALE_MS;
  const supervisor = {
    up,
    state: freshest?.state ?? ('absent' as const),
    id: freshest?.id ?? null,
    pid: freshest?.pid ?? null,
    heartbeatAt: freshest?.heartbeat_at ?? null,
  };
  if (!up || !freshest) {
    return {
      limit: settings.maxConcurrency,
      maxConcurrent: MAX_CONCURRENT_CHAT_TURNS,
      perRunLimit: settings.perRunConcurrency,
      active: 0,
      queued: 0,
      runs: 0,
      perProvider: {},
      supervisor,
      ...chat,
    };
  }
  const c = freshest.concurrency;
  return {
    limit: c.limit,
    maxConcurrent: MAX_CONCURRENT_CHAT_TURNS,
    perRunLimit: c.perRunLimit,
    active: c.active,
    queued: c.queued,
    runs: c.runs,
    perProvider: c.perProvider,
    supervisor,
    ...chat,
  };
}
