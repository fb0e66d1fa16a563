import { z } from 'zod';

/** What was stored for the output text: the preview, whether it was cut, and where the rest went. */
export const persistedOutputSchema = z.strictObject({
  text: z.string(),
  truncated: z.boolean(),
  originalBytes: z.number().int().nonnegative().optional(),
  spillPath: z.string().optional(),
});
export type PersistedOutput = z.infer<typeof persistedOutputSchema>;

/** A path into a node's structured output, from the root: `[['verdict'], ['review', 'score']]`. */
export const outputPathSchema = z.array(z.string());

export const outputSchema = z.strictObject({
  text: z.string(),
  structured: z.unknown().optional(),
  declaredOutputPaths: z.array(outputPathSchema).optional(),
  persisted: persistedOutputSchema.optional(),
});
export type Output = z.infer<typeof outputSchema>;
