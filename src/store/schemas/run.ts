import { z } from 'zod';
import { runMetadataSchema } from './run-metadata.js';
import { inputValueSchema } from '../../shared/input-value.js';

/** Run statuses. Terminal: completed, failed, cancelled. Resumable: failed, paused. */
export const runStatusSchema = z.enum(['pending', 'running', 'paused', 'completed', 'failed', 'cancelled']);
export type RunStatus = z.infer<typeof runStatusSchema>;

export const terminalRunStatuses: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];
export const cancellableRunStatuses: readonly RunStatus[] = ['pending', 'running', 'paused'];

/** A workflow run as stored and as returned by the API (snake_case, like the upstream rows). */
export const runSchema = z.object({
  id: z.string(),
  workflow_name: z.string(),
  status: runStatusSchema,
  conversation_id: z.string(),
  codebase_id: z.string().nullable(),
  working_path: z.string().nullable(),
  user_message: z.string(),
  /** Checked and defaulted: text for an input without a type, a value of its type for a typed one. */
  inputs: z.record(z.string(), inputValueSchema).describe('The run’s inputs as checked and defaulted: text for an input without a type, a value of its declared type (number, boolean, array, object) for a typed one'),
  metadata: runMetadataSchema,
  error: z.string().nullable(),
  parent_run_id: z.string().nullable(),
  user_id: z.string().nullable().describe('The X-Service-User of the request that created the run; null without one'),
  owner_id: z.string().nullable(),
  lease_expires_at: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  last_activity_at: z.string(),
});
export type Run = z.infer<typeof runSchema>;
