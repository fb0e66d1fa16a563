import type { FastifyRequest } from 'fastify';
import { parseWritableSource, type WritableSource } from '../../workflow/catalog/workflow-files.js';

/**
 * The `source` query parameter of `PUT` and `DELETE /api/workflows/{name}`: `project` (the
 * default) or `global`. Anything else, a repeated parameter included, is `Invalid workflow
 * source`, the text upstream clients match on.
 */
export function workflowSourceOf(query: unknown): WritableSource {
  const raw = (query as Record<string, unknown> | null | undefined)?.source;
  // parseWritableSource validates with zod, so a non-string (a repeated `source`) fails too.
  return parseWritableSource(raw as string | undefined);
}

/**
 * A route's `preValidation` hook: the source is checked before the name and the body, so a bad
 * source is reported as such even when the request is wrong in other ways too.
 */
export async function checkWorkflowSource(req: FastifyRequest): Promise<void> {
  workflowSourceOf(req.query);
}
