import type { z } from 'zod';

/**
 * Text that reaches a process (environment, arguments) or is stored and shown (a title) cannot
 * hold a NUL byte: refuse it at the edge with a 400 naming the field, rather than keep text that
 * can only fail later or show cut short.
 */
export function withoutNul<T extends z.ZodString>(schema: T, field: (path: readonly PropertyKey[]) => string) {
  return schema.refine((text) => !text.includes('\0'), {
    error: (iss) => `${field(iss.path ?? [])} must not contain a NUL byte (\\u0000)`,
  });
}
