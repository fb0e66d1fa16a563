import { z } from 'zod';

/**
 * A workflow's `concurrency:` as a run carries it (`metadata.concurrency`): the key its runs
 * share places under, how many places there are, and what a start finds when they are taken:
 * `queue` (the run waits, pending, until a place frees), `refuse` (the start is refused) or
 * `cancel_other` (the oldest run holding a place is cancelled; the new one takes its place once it
 * has ended). A word the workflow language, the store and the wire share, so it sits here.
 */
export const onOverlapSchema = z.enum(['queue', 'refuse', 'cancel_other']);
export type OnOverlap = z.infer<typeof onOverlapSchema>;

export const runConcurrencySchema = z.looseObject({
  key: z.string().describe('The key, computed once when the run was admitted; runs of the same workflow with the same key share the places'),
  limit: z.number().int().positive().describe('How many runs of the key may hold a place (pending to start, running or paused) at once'),
  on_overlap: onOverlapSchema.describe('What a start did when every place was taken: queue, refuse or cancel_other'),
  waiting_for: z
    .array(z.string())
    .optional()
    .describe('While the run waits for a place: the runs of the key holding the places (it starts when one of them ends); absent once it holds one'),
  position: z.number().int().positive().optional().describe('While the run waits: its place in the key\'s queue (1: next to start)'),
});
export type RunConcurrency = z.infer<typeof runConcurrencySchema>;
