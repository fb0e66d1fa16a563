import type { z } from 'zod';

/**
 * Parses a persisted value with a strict schema, accepting keys a newer version added. Older
 * binaries may open the same database (contract, Versioning 2), so a row is refused only for a
 * missing or wrong-typed field, an unknown enum value, or an unknown variant — never for a key
 * this binary does not know. The extra keys are kept on the returned value.
 */
export function parseTolerant<S extends z.ZodType>(
  schema: S,
  value: unknown,
): { success: true; data: z.infer<S> } | { success: false; error: z.ZodError } {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { success: true, data: parsed.data };
  if (parsed.error.issues.every((issue) => issue.code === 'unrecognized_keys')) {
    return { success: true, data: value as z.infer<S> };
  }
  return { success: false, error: parsed.error };
}
