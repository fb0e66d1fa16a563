import { z } from 'zod';
import { codebaseSchema, isolationEnvironmentSchema } from '../store/schemas/codebase.js';

/** Schemas of `/api/codebases` and `/api/codebases/{id}`, for validation, serialization and OpenAPI. */

export const codebaseSourceRule = 'Provide either "url" or "path", not both and not neither';

export const registerCodebaseBodySchema = z
  .strictObject({
    url: z.string().min(1, { error: 'url must be a non-empty string' }).optional()
      .describe('Any URL git clones (https, ssh, git@host:owner/repo.git, file://, a local bare repository)'),
    path: z.string().min(1, { error: 'path must be a non-empty string' }).optional()
      .describe('Absolute path of a local directory to register in place'),
  })
  .refine((body) => (body.url === undefined) !== (body.path === undefined), { error: codebaseSourceRule });

export const codebaseConsentBodySchema = z.strictObject({
  allowEnvKeys: z.boolean({ error: 'allowEnvKeys must be a boolean (true grants, false revokes)' }),
});

const idDescription =
  'The codebase id, owner/repo, either percent-encoded as one segment (owner%2Frepo) or as two segments';

export const codebaseIdParamsSchema = z.object({
  id: z.string().min(1).max(400).describe(idDescription),
});

export const codebaseOwnerRepoParamsSchema = z.object({
  owner: z.string().min(1).max(200).describe('The owner part of the codebase id'),
  repo: z.string().min(1).max(200).describe('The repository part of the codebase id'),
});

export const codebaseViewSchema = codebaseSchema.describe('A registered codebase').meta({ id: 'Codebase' });

export const codebaseListResponseSchema = z.object({ codebases: z.array(codebaseViewSchema) });

export const codebaseDeleteResponseSchema = z.object({
  success: z.literal(true),
  id: z.string(),
  removedPath: z.string().nullable().describe('The clone deleted from disk; null for a registered local checkout'),
});

export const environmentViewSchema = isolationEnvironmentSchema.extend({
  days_since_activity: z.number().int().nonnegative(),
});

export const environmentListResponseSchema = z.object({ environments: z.array(environmentViewSchema) });

export const environmentDeleteResponseSchema = z.object({
  success: z.literal(true),
  environment: environmentViewSchema.omit({ days_since_activity: true }),
  removed: z.boolean().describe('Whether the worktree was removed from disk (git worktree remove); its branch is kept'),
  detail: z.string(),
});
