import { z } from 'zod';
import { runCursorSchema, type RunCursor } from '../store/schemas/run-page.js';

/**
 * The run list's page cursor as clients see it: opaque base64url text of the last run's creation
 * time and row id. A cursor this server did not give is a 400, never an empty page.
 */

/** The cursor of a run-list page as the client sees it: opaque base64url text. */
export function encodeRunCursor(cursor: RunCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.rowid])).toString('base64url');
}

const cursorText = 'cursor must be the nextCursor of a previous answer, unchanged';

function decodeRunCursor(text: string): RunCursor | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    const [createdAt, rowid] = Array.isArray(parsed) ? parsed : [];
    const cursor = runCursorSchema.safeParse({ createdAt, rowid });
    return cursor.success && !Number.isNaN(Date.parse(cursor.data.createdAt)) ? cursor.data : undefined;
  } catch {
    return undefined;
  }
}

export const runCursorTextSchema = z
  .string({ error: cursorText })
  .max(200, { error: cursorText })
  .transform((text, ctx) => {
    const cursor = decodeRunCursor(text);
    if (!cursor) ctx.addIssue({ code: 'custom', message: cursorText });
    return cursor ?? z.NEVER;
  });

