import { z } from 'zod';

/** Reasoning depth. The contract's `binding.effort` vocabulary, so any value is recordable. */
export const effortSchema = z.enum(['minimal', 'low', 'medium', 'high', 'xhigh', 'max', 'ultra', 'persistent']);
export type Effort = z.infer<typeof effortSchema>;
