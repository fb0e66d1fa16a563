import { z } from 'zod';

/** `repo`: a git checkout (its root); `folder`: any other directory, registered as it is. */
export const codebaseKindSchema = z.enum(['repo', 'folder']);
export type CodebaseKind = z.infer<typeof codebaseKindSchema>;

/**
 * What the env-leak scan found in a checkout's `.env*` files: file names and key names only.
 * Values are never read into this record. `error` means a file could not be read (its name is
 * still listed), so the scan cannot vouch for the checkout.
 */
export const envScanSchema = z.object({
  status: z.enum(['clean', 'keys_found', 'error']),
  files: z.array(z.string()).describe('The .env* files scanned, relative to the checkout'),
  keys: z.array(z.string()).describe('Names of the keys that look like secrets, sorted, without values'),
  scanned_at: z.string(),
});
export type EnvScan = z.infer<typeof envScanSchema>;

export const codebaseSchema = z.object({
  id: z.string().describe('owner/repo, from the remote URL; local/<folder>@<hash> for a checkout without a remote'),
  name: z.string(),
  repository_url: z.string().nullable(),
  default_cwd: z.string().describe('Absolute path of the checkout'),
  default_branch: z.string().nullable(),
  kind: codebaseKindSchema,
  /** True when Cairn cloned it into its workspaces (and so deletes it with the registration). */
  managed: z.boolean(),
  allow_env_keys: z.boolean(),
  env_scan: envScanSchema,
  created_at: z.string(),
  updated_at: z.string(),
});
export type Codebase = z.infer<typeof codebaseSchema>;

export type NewCodebase = Omit<Codebase, 'allow_env_keys' | 'created_at' | 'updated_at'>;

export const isolationStatusSchema = z.enum(['active', 'destroyed']);

/** A worktree (or other isolated checkout) that a run or conversation works in. */
export const isolationEnvironmentSchema = z.object({
  id: z.string(),
  codebase_id: z.string(),
  workflow_type: z.string(),
  workflow_id: z.string(),
  provider: z.string(),
  working_path: z.string(),
  branch_name: z.string().nullable(),
  created_by_platform: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  status: isolationStatusSchema,
  locked_by_run: z.string().nullable().describe('The run holding the lock; null when nobody works in it'),
  lock_owner: z.string().nullable().describe('The supervisor driving that run'),
  lock_expires_at: z
    .string()
    .nullable()
    .describe('When the lock lapses unless its supervisor renews it (a crashed supervisor’s lock lapses on its own)'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type IsolationEnvironment = z.infer<typeof isolationEnvironmentSchema>;

export type NewIsolationEnvironment = Omit<
  IsolationEnvironment,
  'status' | 'created_at' | 'updated_at' | 'locked_by_run' | 'lock_owner' | 'lock_expires_at'
>;

/** `worktree`: a git worktree of its own; `checkout`: the codebase checkout itself, used in place. */
export const isolationProviderSchema = z.enum(['worktree', 'checkout']);
export type IsolationProvider = z.infer<typeof isolationProviderSchema>;

/** What a run asks of the store when it starts in an environment (see CodebaseStore.claimRunIsolation). */
export interface ClaimRunIsolation {
  runId: string;
  ownerId: string;
  leaseMs: number;
  /** The environment to record when the run has none yet. */
  env: NewIsolationEnvironment;
}

/**
 * `claimed`: the run holds the environment's lock (`created` when the row is new, false when
 * it existed: a take-over or a retried start). `branch_held`: another active environment of the
 * codebase has the branch. `locked`: another run holds the environment (or, for `checkout`, the
 * codebase checkout) under a live lock.
 */
export type ClaimRunIsolationResult =
  | { kind: 'claimed'; env: IsolationEnvironment; created: boolean }
  | { kind: 'branch_held'; env: IsolationEnvironment }
  | { kind: 'locked'; env: IsolationEnvironment };
