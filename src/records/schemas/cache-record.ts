import { z } from 'zod';
import { nodeDescriptorSchema } from './node-descriptor.js';
import { outputSchema } from './node-output.js';

/**
 * A cache decision about a node's reusable output on resume. It carries no new attempt,
 * binding, timing or newly consumed spend, and it is not a lifecycle status.
 */
export const cacheActionSchema = z.enum(['replayed', 'reset', 'invalidated']);
export type CacheAction = z.infer<typeof cacheActionSchema>;

export const cacheDecisionSchema = z.discriminatedUnion('action', [
  /** A prior success is reused; its output feeds downstream nodes. */
  z.strictObject({ action: z.literal('replayed'), output: outputSchema }),
  /** An `always_run` node discards its reusable output and runs again. */
  z.strictObject({ action: z.literal('reset'), prior: outputSchema }),
  /** A dependency re-ran with a different output, so the cached output is stale. */
  z.strictObject({ action: z.literal('invalidated'), prior: outputSchema, invalidatingDeps: z.array(z.string()) }),
]);
export type CacheDecision = z.infer<typeof cacheDecisionSchema>;

export const cacheRecordSchema = z.strictObject({
  runId: z.string().min(1),
  path: z.string().min(1),
  node: nodeDescriptorSchema,
  cache: cacheDecisionSchema,
});
export type CacheRecord = z.infer<typeof cacheRecordSchema>;
