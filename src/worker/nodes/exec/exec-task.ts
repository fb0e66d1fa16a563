import { z } from 'zod';
import { execRuntimeSchema } from '../../../records/schemas/node-descriptor.js';
import { attemptTaskShape } from '../../attempt-protocol.js';

export { execRuntimeSchema, type ExecRuntime } from '../../../records/schemas/node-descriptor.js';

/** One attempt of an exec node (bash, or a bun/uv script), fully resolved by the supervisor. */
export const execAttemptTaskSchema = z.object({
  ...attemptTaskShape,
  kind: z.literal('exec'),
  runtime: execRuntimeSchema,
  /** Upstream `type` flat key: `bash` for bash nodes, `script` for script nodes. */
  legacyType: z.enum(['bash', 'script']),
  /** The script body after variable substitution (bash), or the script code / file (bun, uv). */
  script: z.string(),
  /** Dependencies for uv scripts (`deps:`). */
  deps: z.array(z.string()).default([]),
  /** Added to the worker's environment for the child (inputs, user-controlled variables). */
  env: z.record(z.string(), z.string()),
  /** `block`: runtimes that load the cwd's `.env` files on their own (bun) are told not to (the env-leak gate). */
  envFiles: z.enum(['load', 'block']).default('load'),
  timeoutMs: z.number().int().positive(),
  /** Where the full output is written when it is longer than an event row's preview (the
   * run's artifacts); the record names the file so a later reader gets every byte. */
  outputSpillDir: z.string(),
});
export type ExecAttemptTask = z.input<typeof execAttemptTaskSchema>;
