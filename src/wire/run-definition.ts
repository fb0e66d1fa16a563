import { z } from 'zod';

/**
 * `GET /api/workflows/runs/{runId}/definition`: the workflow definition stored with the run when
 * it was queued (or replaced by a resume that read a newer file): what the run's nodes and their
 * dependencies are, whatever the workflow's file says now. The dashboard draws a run's graph from it.
 */
export const runDefinitionResponseSchema = z.object({
  definition: z
    .record(z.string(), z.unknown())
    .describe('The workflow as it was loaded for the run: name, description, nodes (each with id and depends_on) ...'),
});
export type RunDefinitionResponse = z.infer<typeof runDefinitionResponseSchema>;
