import { z } from 'zod';

/**
 * What a schedule does when it comes due while a run it started is still open: `skip` the new
 * fire; `buffer_one` keep one fire to start when the open run ends (later ones are skipped);
 * `buffer_all` keep every fire, started one after another; `cancel_other` cancel the open run and
 * start the new one; `allow_all` start it anyway. A word the workflow language (`triggers:`), the
 * store and the wire share, so it sits here.
 */
export const overlapPolicySchema = z.enum(['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'allow_all']);
export type OverlapPolicy = z.infer<typeof overlapPolicySchema>;
