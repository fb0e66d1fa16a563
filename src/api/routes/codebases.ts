import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CodebaseRegistry } from '../../codebases/codebase-registry.js';
import type { IsolationEnvironment } from '../../store/schemas/codebase.js';
import {
  codebaseConsentBodySchema,
  codebaseDeleteResponseSchema,
  codebaseIdParamsSchema,
  codebaseListResponseSchema,
  codebaseOwnerRepoParamsSchema,
  codebaseViewSchema,
  environmentDeleteResponseSchema,
  environmentListResponseSchema,
  registerCodebaseBodySchema,
} from '../../wire/codebases.js';
import { errorBodySchema } from '../../wire/error-body.js';

export interface CodebaseRoutesOptions {
  registry: CodebaseRegistry;
  clock: () => number;
}

const notFound = { 400: errorBodySchema, 404: errorBodySchema };
const dayMs = 24 * 3600_000;

/**
 * The id in the URL. Ids are `owner/repo`, so each route comes in two shapes: `{id}` with the
 * slash percent-encoded (`owner%2Frepo`), and `{owner}/{repo}`. An id always holds a slash, so
 * `/api/codebases/o/environments` (one segment before `environments`) names codebase
 * `o/environments`, not the environments of a codebase `o`.
 */
type IdParams = { id: string } | { owner: string; repo: string };
const idOf = (params: IdParams): string => ('id' in params ? params.id : `${params.owner}/${params.repo}`);

/** `/api/codebases`: register (clone or local path), list, read, consent to env keys, delete, environments. */
export const codebaseRoutes: FastifyPluginAsyncZod<CodebaseRoutesOptions> = async (app, { registry, clock }) => {
  app.get(
    '/api/codebases',
    { schema: { tags: ['codebases'], summary: 'Registered codebases, sorted by id', response: { 200: codebaseListResponseSchema } } },
    async () => ({ codebases: await registry.list() }),
  );

  app.post(
    '/api/codebases',
    {
      schema: {
        tags: ['codebases'],
        summary: 'Clone a repository ({ url }) or register a local directory ({ path })',
        description:
          'Exactly one of url and path. A clone goes to $CAIRN_HOME/workspaces/<owner>/<repo>/source. ' +
          'The id is owner/repo from the remote URL, so clones of one remote share one id; a directory ' +
          'without a remote gets local/<folder>@<hash>. 201 when registered now, 200 when the id was ' +
          'already registered (the existing record, unchanged). A directory that is not a git repository ' +
          'root registers as kind folder. The .env* files are scanned for secret-looking key names.',
        body: registerCodebaseBodySchema,
        response: { 200: codebaseViewSchema, 201: codebaseViewSchema, 400: errorBodySchema, 415: errorBodySchema },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const { codebase, created } = await registry.register(
        body.url !== undefined ? { url: body.url } : { path: body.path! },
      );
      return reply.code(created ? 201 : 200).send(codebase);
    },
  );

  const getOne = { tags: ['codebases'], summary: 'One codebase', response: { 200: codebaseViewSchema, ...notFound } };
  app.get('/api/codebases/:id', { schema: { ...getOne, params: codebaseIdParamsSchema } }, (req) => registry.get(idOf(req.params)));
  app.get('/api/codebases/:owner/:repo', { schema: { ...getOne, params: codebaseOwnerRepoParamsSchema } }, (req) =>
    registry.get(idOf(req.params)),
  );

  const patch = {
    tags: ['codebases'],
    summary: 'Grant or revoke consent to the secret-looking keys of the .env* files',
    description: 'Rescans the .env* files; every grant and revoke is logged at warn level (key names, never values).',
    body: codebaseConsentBodySchema,
    response: { 200: codebaseViewSchema, ...notFound, 415: errorBodySchema },
  };
  const actorOf = (ip: string) => `http:${ip}`;
  app.patch('/api/codebases/:id', { schema: { ...patch, params: codebaseIdParamsSchema } }, (req) =>
    registry.setEnvConsent(idOf(req.params), req.body.allowEnvKeys, actorOf(req.ip)),
  );
  app.patch('/api/codebases/:owner/:repo', { schema: { ...patch, params: codebaseOwnerRepoParamsSchema } }, (req) =>
    registry.setEnvConsent(idOf(req.params), req.body.allowEnvKeys, actorOf(req.ip)),
  );

  const remove = {
    tags: ['codebases'],
    summary: 'Remove a registration and its isolation environments',
    description: 'A clone Cairn made is deleted from disk; a registered local directory never is.',
    response: { 200: codebaseDeleteResponseSchema, ...notFound },
  };
  const removeOne = async (id: string) => {
    const { removedPath } = await registry.remove(id);
    return { success: true as const, id, removedPath };
  };
  app.delete('/api/codebases/:id', { schema: { ...remove, params: codebaseIdParamsSchema } }, (req) => removeOne(idOf(req.params)));
  app.delete('/api/codebases/:owner/:repo', { schema: { ...remove, params: codebaseOwnerRepoParamsSchema } }, (req) =>
    removeOne(idOf(req.params)),
  );

  const listEnvironments = async (id: string) => {
    const now = clock();
    const view = (env: IsolationEnvironment) => ({
      ...env,
      days_since_activity: Math.max(0, Math.floor((now - Date.parse(env.updated_at)) / dayMs)),
    });
    return { environments: (await registry.environments(id)).map(view) };
  };
  const environments = {
    tags: ['codebases'],
    summary: 'Isolation environments (worktrees) of a codebase',
    description: 'The worktrees runs made (and the codebase checkout while a worktree.enabled: false run holds it), with their locks.',
    response: { 200: environmentListResponseSchema, ...notFound },
  };
  const environmentsOrCodebase = {
    ...environments,
    response: { ...environments.response, 200: z.union([environmentListResponseSchema, codebaseViewSchema]) },
  };
  app.get('/api/codebases/:id/environments', { schema: { ...environmentsOrCodebase, params: codebaseIdParamsSchema } }, (req) => {
    const id = req.params.id;
    // A single segment is never an id; see idOf. Read it as the codebase `<id>/environments`.
    return id.includes('/') ? listEnvironments(id) : registry.get(`${id}/environments`);
  });
  app.delete(
    '/api/codebases/:owner/:repo/environments/:envId',
    {
      schema: {
        tags: ['codebases'],
        summary: 'Remove one isolation environment (worktree) no run holds',
        description: 'Its row, then its git worktree from disk; the branch is kept. 409 CODEBASE_BUSY while a run works in it.',
        params: codebaseOwnerRepoParamsSchema.extend({ envId: z.string().min(1).max(200) }),
        response: { 200: environmentDeleteResponseSchema, ...notFound },
      },
    },
    async (req) => {
      const { env, removed, detail } = await registry.removeEnvironment(idOf(req.params), req.params.envId);
      return { success: true as const, environment: env, removed, detail };
    },
  );
  app.get(
    '/api/codebases/:owner/:repo/environments',
    { schema: { ...environments, params: codebaseOwnerRepoParamsSchema } },
    (req) => listEnvironments(idOf(req.params)),
  );
};
