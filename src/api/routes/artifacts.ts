import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CairnError } from '../../shared/errors.js';
import type { HomePaths } from '../../shared/paths.js';
import type { Run } from '../../store/schemas/run.js';
import type { Store } from '../../store/store.js';
import { artifactFileParamsSchema, artifactListResponseSchema, artifactRunParamsSchema } from '../../wire/artifacts.js';
import { errorBodySchema } from '../../wire/error-body.js';
import {
  artifactContentType,
  checkArtifactRunId,
  listArtifactFiles,
  listedArtifactsDir,
  resolveArtifactFile,
} from '../run-files/artifact-files.js';
import { runErrorText } from '../../runs/run-texts.js';

export interface ArtifactRoutesOptions {
  store: Store;
  paths: HomePaths;
}

async function requireRun(store: Store, runId: string): Promise<Run> {
  checkArtifactRunId(runId);
  const run = await store.getRun(runId);
  if (!run) throw new CairnError('RUN_NOT_FOUND', runErrorText.notFound);
  return run;
}

const errors = { 400: errorBodySchema, 404: errorBodySchema };

/** `GET /api/runs/{runId}/artifacts` (the listing) and `GET /api/artifacts/{runId}/{path}` (one file). */
export const artifactRoutes: FastifyPluginAsyncZod<ArtifactRoutesOptions> = async (app, { store, paths }) => {
  app.get(
    '/api/runs/:runId/artifacts',
    {
      schema: {
        tags: ['runs'],
        summary: 'The files of a run’s artifacts folder ($ARTIFACTS_DIR)',
        description:
          'Every regular file, sorted by path; dotfiles and dot-folders (Cairn’s own .cairn/) are left out ' +
          'and symlinks are not followed. { files: [] } for a run without a codebase or whose codebase id is ' +
          'not owner/repo. 400 Invalid run id for an id that is not letters, digits, - and _; 404 for an unknown run.',
        params: artifactRunParamsSchema,
        response: { 200: artifactListResponseSchema, ...errors },
      },
    },
    async (req) => {
      const run = await requireRun(store, req.params.runId);
      const dir = listedArtifactsDir(paths, run);
      return { files: dir ? await listArtifactFiles(dir) : [] };
    },
  );

  app.get(
    '/api/artifacts/:runId/*',
    {
      schema: {
        tags: ['runs'],
        summary: 'One file of a run’s artifacts, with its content type',
        description:
          'The path is one the listing gives. 400 Invalid artifact path for an absolute path, a ./.. or dot ' +
          'segment, a backslash, a percent-escape left after decoding, or a symlink leading out of the folder; ' +
          '404 for an unknown run or file.',
        params: artifactFileParamsSchema,
        produces: ['application/octet-stream'],
        response: { 200: z.string().describe('The file’s bytes'), ...errors },
      },
    },
    async (req, reply) => {
      const run = await requireRun(store, req.params.runId);
      const path = req.params['*'];
      const { file, size } = await resolveArtifactFile(listedArtifactsDir(paths, run), path);
      const name = basename(file).replace(/[^\w.-]/g, '_');
      return reply
        .type(artifactContentType(file))
        .header('content-length', String(size))
        .header('x-content-type-options', 'nosniff')
        // An HTML or SVG artifact is shown, never run with the API's origin.
        .header('content-security-policy', "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'")
        .header('content-disposition', `inline; filename="${name}"`)
        // A stream is sent as it is (fastify never serializes one); the schema describes the bytes.
        .send(createReadStream(file) as unknown as string);
    },
  );
};
