import { z } from 'zod';

/**
 * `GET /api/runs/{runId}/artifacts` and `GET /api/artifacts/{runId}/{path}`: the files a run
 * wrote under its `$ARTIFACTS_DIR`. Ids and paths are checked by the route (`api/run-files/artifact-files.ts`),
 * so a refusal says which part was wrong; the schemas only bound their length.
 */

export const artifactRunParamsSchema = z.object({
  runId: z.string().max(200).describe('Run id: letters, digits, - and _'),
});

export const artifactFileParamsSchema = artifactRunParamsSchema.extend({
  '*': z.string().max(4096).describe('The file’s path inside the run’s artifacts, as the listing gives it'),
});

export const artifactFileSchema = z.object({
  path: z.string().describe('Relative to the run’s artifacts folder, with / between folders'),
  size: z.number().int().nonnegative().describe('Bytes'),
  modifiedAt: z.string().describe('ISO time of the last change'),
});
export type ArtifactFile = z.infer<typeof artifactFileSchema>;

export const artifactListResponseSchema = z.object({
  files: z.array(artifactFileSchema).describe('Sorted by path; dotfiles and dot-folders are left out'),
});
export type ArtifactListResponse = z.infer<typeof artifactListResponseSchema>;
