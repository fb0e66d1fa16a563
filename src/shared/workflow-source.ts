import { z } from 'zod';

/**
 * The scope a workflow or command was loaded from: the project, the user's `$CAIRN_HOME` or the
 * package (workflow/catalog/locations.ts says where each is). A run records it in its metadata and the API
 * lists it, so the word sits below the store, the wire and the workflow language alike.
 */
export const workflowSourceSchema = z.enum(['project', 'global', 'bundled']);
export type WorkflowSource = z.infer<typeof workflowSourceSchema>;
