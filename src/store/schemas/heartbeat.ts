import { z } from 'zod';

/** Live concurrency a supervisor reports; `/api/health` shows the freshest one. */
export const concurrencySnapshotSchema = z.object({
  limit: z.number().int().positive(),
  perRunLimit: z.number().int().positive(),
  active: z.number().int().nonnegative(),
  queued: z.number().int().nonnegative(),
  runs: z.number().int().nonnegative(),
  /** Per provider: slots held (calls in flight, and nodes holding their slot while they wait for a global one), nodes waiting in line, and the configured limit (absent: none). */
  perProvider: z.record(z.string(), z.object({ active: z.number().int(), queued: z.number().int(), limit: z.number().int().optional() })),
});
export type ConcurrencySnapshot = z.infer<typeof concurrencySnapshotSchema>;

export const supervisorHeartbeatSchema = z.object({
  id: z.string(),
  pid: z.number().int(),
  hostname: z.string(),
  started_at: z.string(),
  heartbeat_at: z.string(),
  state: z.enum(['running', 'draining', 'stopped']),
  concurrency: concurrencySnapshotSchema,
});
export type SupervisorHeartbeat = z.infer<typeof supervisorHeartbeatSchema>;
