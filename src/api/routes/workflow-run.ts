import { requestUser } from '../callers/identity.js';
import { randomUUID } from 'node:crypto';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { pickRunOverrides } from '../../store/schemas/run-overrides.js';
import type { RunAttachment } from '../../store/schemas/run-attachment.js';
import type { Store } from '../../store/store.js';
import type { WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import { queueRun } from '../../runs/queue-run.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { runArtifactsDir } from '../../codebases/workspace-paths.js';
import { CairnError } from '../../shared/errors.js';
import type { HomePaths } from '../../shared/paths.js';
import type { InstallKey } from '../../shared/secrets/install-key.js';
import { formatValidationIssues } from '../errors.js';
import { placeAttachments } from '../run-files/run-attachments.js';
import { checkRunRequest } from '../run-target/run-request-check.js';
import { discardUpload, receiveUpload, uploadLimits } from '../run-files/run-upload.js';
import {
  runQuerySchema,
  runRequestBodySchema,
  runStartResponseSchema,
  workflowNameParamsSchema,
  type RunRequestBody,
} from '../../wire/run-request.js';

export interface WorkflowRunRoutesOptions {
  store: Store;
  catalog: WorkflowCatalog;
  clock: () => number;
  paths: HomePaths;
  /** The largest JSON body, and so the largest text field of a multipart request. */
  bodyLimit: number;
  /** Seals the request's `config.env` values into the run's metadata. */
  installKey: () => InstallKey;
}

/** The body's own schema, without the missing body it also takes (a missing body is `undefined`). */
const runRequestObjectSchema = runRequestBodySchema.unwrap().unwrap();

/** Fields checked with the schema a JSON body is checked with: a multipart request's, or a JSON `null`. */
function parseBody(fields: unknown): NonNullable<RunRequestBody> {
  const parsed = runRequestObjectSchema.safeParse(fields);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ instancePath: `/${issue.path.join('/')}`, message: issue.message }));
    throw new CairnError('VALIDATION_FAILED', formatValidationIssues(issues, 'body'));
  }
  return parsed.data;
}

/**
 * `POST /api/workflows/{name}/run`, as JSON or multipart. Everything is checked first (fields,
 * cwd, codebase, workflow, inputs, config) before anything costs: the attachments wait in a
 * temporary folder meanwhile. Then the attachments move into the new run's `$ATTACHMENTS_DIR`,
 * and one transaction writes the pending run with the definition it will execute and its
 * `start_run` job. A refusal at any step leaves no run, no job and no file. The supervisor does the rest.
 */
export const workflowRunRoutes: FastifyPluginAsyncZod<WorkflowRunRoutesOptions> = async (app, opts) => {
  // Scoped to this plugin: every other route still answers a multipart body with 415.
  await app.register(fastifyMultipart, { limits: uploadLimits(opts.bodyLimit), throwFileSizeLimit: true });

  app.post(
    '/api/workflows/:name/run',
    {
      schema: {
        tags: ['workflows'],
        summary: 'Start a run of a workflow (JSON, or multipart with attachments)',
        description:
          'Finds the workflow by name (project under cwd, then home, then bundled), checks inputs ' +
          '(undeclared names and missing required inputs are refused; omitted ones take their ' +
          'default; {} equals omission) and the inline config, then queues the run. The answer ' +
          'comes before the run starts: follow it with GET /api/workflows/runs/{runId} or the ' +
          'stream /api/stream/{conversationId}. tiers, aliases and config are kept in the run ' +
          'metadata (metadata.overrides, and the run’s binding layer in metadata.model_bindings, ' +
          'reused on resume); config.env values are sealed with the install key (metadata.sealed_env, ' +
          'never shown) and set in the environment of the run’s nodes; only their names are shown ' +
          '(metadata.overrides.env_names). The body may ' +
          'instead be multipart/form-data: the same fields as form fields (inputs, config, tiers ' +
          'and aliases JSON-encoded, one field each) and up to 5 file parts of at most 10 MB each, ' +
          'kept in the run’s $ATTACHMENTS_DIR ($ARTIFACTS_DIR/attachments) and listed in ' +
          'metadata.attachments. A run on a registered codebase (codebaseId, or a cwd that is its ' +
          'checkout) gets its own git worktree on its own branch, made by the supervisor when the run ' +
          'starts (see docs/worktrees.md); with baseBranch, a new branch is cut from that base, which ' +
          'must be a branch of the repository (locally or as origin/<base>), and it is the run’s $BASE_BRANCH.',
        params: workflowNameParamsSchema,
        querystring: runQuerySchema,
        body: runRequestBodySchema,
        response: {
          200: runStartResponseSchema,
          400: errorBodySchema,
          404: errorBodySchema,
          // The workflow's `concurrency:` refuses the start (on_overlap: refuse, every place taken).
          409: errorBodySchema,
          413: errorBodySchema,
          415: errorBodySchema,
        },
      },
      // A JSON `null` body is not an object, but the validator cannot tell it from no body (fastify
      // hands a missing body to it as null); it is refused here, before, like `[]` or `"text"`.
      preValidation: async (req) => {
        if (req.body === null) parseBody(null);
      },
    },
    async (req) => {
      const upload = req.isMultipart() ? await receiveUpload(req, opts.paths.uploads, opts.bodyLimit) : undefined;
      let undo: (() => Promise<void>) | undefined;
      try {
        const body = upload ? parseBody(upload.body) : (req.body ?? {});
        const userId = requestUser(req);
        const { cwd, codebase, projectDir, entry, inputs } = await checkRunRequest(opts, req.params.name, req.query, body);
        const workflow = entry.workflow;
        const { configWarnings } = await opts.catalog.listAsync({ cwd: projectDir });
        const runId = randomUUID();
        const codebaseId = codebase?.codebaseId ?? null;
        let attachments: RunAttachment[] | undefined;
        if (upload && upload.files.length > 0) {
          const artifactsDir = runArtifactsDir(opts.paths, { id: runId, codebase_id: codebaseId });
          const placed = await placeAttachments(upload, artifactsDir, codebaseId ? artifactsDir : opts.paths.runFolder(runId));
          ({ attachments, undo } = placed);
        }
        const run = await queueRun(opts.store, {
          entry,
          runId,
          inputs,
          message: body.message ?? '',
          workingPath: codebase?.checkout ?? cwd ?? null,
          codebaseId,
          ...(body.branch !== undefined ? { branch: body.branch } : {}),
          baseBranch: body.baseBranch,
          configWarnings,
          ...('budget' in body && body.budget !== undefined ? { budgetUsd: body.budget.usd } : {}),
          conversationId: body.conversationId,
          overrides: pickRunOverrides(body),
          ...(body.config?.env ? { env: { values: body.config.env, key: opts.installKey } } : {}),
          ...(attachments ? { attachments } : {}),
          userId,
          clock: opts.clock,
        });
        const conversationId = run.conversation_id;
        req.log.info(
          {
            runId: run.id, workflow: workflow.name, source: entry.source, conversationId, cwd: cwd ?? null, codebaseId,
            attachments: attachments?.length ?? 0,
          },
          'run.start_requested',
        );
        return { accepted: true as const, runId: run.id, conversationId, status: 'pending' as const };
      } catch (err) {
        await undo?.();
        throw err;
      } finally {
        await discardUpload(upload);
      }
    },
  );
};
