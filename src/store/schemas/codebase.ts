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
  created_at: z.string(),
  updated_at: z.string(),
});
export type IsolationEnvironment = z.infer<typeof isolationEnvironmentSchema>;

export type NewIsolationEnvironment = Omit<IsolationEnvironment, 'status' | 'created_at' | 'updated_at'>;
