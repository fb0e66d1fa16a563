import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CairnError } from '../../shared/errors.js';
import type { InstallKey } from '../../shared/secrets/install-key.js';
import type { Hook, StoredHook } from '../../store/schemas/hook.js';
import { hookSchema } from '../../store/schemas/hook.js';
import type { Store } from '../../store/store.js';
import { sealHookSecret } from '../../hooks/hook-secret.js';
import { mappingProblem } from '../../hooks/payload-inputs.js';
import type { WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import { isInteractive } from '../../workflow/schema/interactive.js';
import { errorBodySchema } from '../../wire/error-body.js';
import {
  createHookBodySchema, DEFAULT_GITHUB_API_URL, githubTokenBodySchema, HOOK_DELIVERIES_DEFAULT_LIMIT, hookDeleteResponseSchema, hookDeliveriesQuerySchema, hookDeliveryListResponseSchema,
  hookListQuerySchema, hookListResponseSchema, hookParamsSchema,
} from '../../wire/hooks.js';
import { bindRunToCodebase } from '../run-target/run-codebase.js';
import { lookupWorkflow } from '../workflow-files/workflow-lookup.js';
import { sealGitHubAppKey, sealGitHubToken } from '../../github/github-token.js';
import { GITHUB_INPUT_NAMES } from '../../github/run-context.js';

export interface HookRoutesOptions {
  store: Store;
  catalog: WorkflowCatalog;
  installKey: () => InstallKey;
}

const refusals = { 400: errorBodySchema, 404: errorBodySchema };

/** What the API shows of a hook: everything but its sealed secret. */
export const hookView = ({ sealed_secret: _sealed, sealed_github_token: _token, ...hook }: StoredHook): Hook => hook;

/**
 * `/api/hooks`: list, create, read and delete webhooks, and list a hook's deliveries. Deliveries arrive at `POST
 * /api/hooks/{name}` (hook-deliveries.ts). The secret goes in once and is never answered back.
 */
export const hookRoutes: FastifyPluginAsyncZod<HookRoutesOptions> = async (app, { store, catalog, installKey }) => {
  const requireHook = async (name: string): Promise<StoredHook> => {
    const hook = await store.getHook(name);
    if (!hook) throw new CairnError('HOOK_NOT_FOUND', `No webhook is named '${name}'; list them with GET /api/hooks`);
    return hook;
  };

  app.get(
    '/api/hooks',
    {
      schema: {
        tags: ['hooks'], summary: 'Every webhook, by name (never its secret); with ?deliveries=N, each with its latest N deliveries',
        querystring: hookListQuerySchema, response: { 200: hookListResponseSchema, 400: errorBodySchema },
      },
    },
    async (req) => {
      const hooks = await store.listHooks();
      const shown = req.query.deliveries ?? 0;
      if (shown === 0) return { hooks: hooks.map(hookView) };
      return {
        hooks: await Promise.all(
          hooks.map(async (hook) => ({ ...hookView(hook), deliveries: await store.listHookDeliveries(hook.id, { limit: shown, offset: 0 }) })),
        ),
      };
    },
  );

  app.post(
    '/api/hooks',
    {
      schema: {
        tags: ['hooks'],
        summary: 'Create a webhook',
        description:
          'Checks the codebase, the workflow (found as a run request finds it; an interactive one is refused), that each mapped ' +
          'input is one the workflow declares and each path is of the supported form, and that every required input without a ' +
          'default is mapped; then stores the hook with its secret sealed. Deliveries go to POST /api/hooks/{name}. docs/webhooks.md. ' +
          'With `github` (signature github) it is a GitHub hook: each of its `workflows` is checked too, and its token is sealed ' +
          'and never answered back (docs/github.md).',
        body: createHookBodySchema,
        response: { 201: hookSchema, ...refusals, 409: errorBodySchema },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const inputs = body.inputs ?? {};
      const problem = mappingProblem(inputs);
      if (problem) throw new CairnError('VALIDATION_FAILED', `inputs: ${problem}`);
      if (body.github && (body.github.token === undefined) === (body.github.app === undefined)) {
        throw new CairnError('VALIDATION_FAILED', 'github: give either token (a personal access or installation token) or app (appId, installationId, privateKey), not both');
      }
      if (body.github && body.signature !== 'github') {
        throw new CairnError('VALIDATION_FAILED', "github: a GitHub hook's deliveries come from GitHub, signed in its form: set signature to github");
      }
      const codebase = body.codebaseId !== undefined ? await bindRunToCodebase(store, body.codebaseId) : undefined;
      // A GitHub hook's runs receive the github_* inputs they declare (github/run-context.ts).
      const supplied = (input: string) => inputs[input] !== undefined || (body.github !== undefined && (GITHUB_INPUT_NAMES as readonly string[]).includes(input));
      const checkWorkflow = async (name: string, mapped: boolean) => {
        const workflow = (await lookupWorkflow(catalog, name, { cwd: codebase?.checkout })).workflow;
        if (isInteractive(workflow)) {
          throw new CairnError('VALIDATION_FAILED', `Workflow '${workflow.name}' is interactive ('interactive: true'): a webhook starts runs with no one there to drive them`);
        }
        const declared = Object.keys(workflow.inputs ?? {});
        for (const input of mapped ? Object.keys(inputs) : []) {
          if (!declared.includes(input)) {
            throw new CairnError(
              'VALIDATION_FAILED',
              `inputs: '${input}' is not an input of workflow '${workflow.name}'; ${declared.length ? `declared inputs: ${declared.join(', ')}` : 'it declares none'}`,
            );
          }
        }
        for (const [input, spec] of Object.entries(workflow.inputs ?? {})) {
          if (spec.required && spec.default === undefined && !supplied(input)) {
            throw new CairnError('VALIDATION_FAILED', `inputs: workflow '${workflow.name}' requires input '${input}' (no default): map it to a path in the payload`);
          }
        }
        return workflow;
      };
      const workflow = await checkWorkflow(body.workflow, true);
      const others = [...new Set(body.github?.workflows ?? [])].filter((name) => name !== workflow.name);
      const allowed: string[] = [];
      for (const name of others) allowed.push((await checkWorkflow(name, false)).name);
      const id = randomUUID();
      const hook = await store.createHook({
        id, name: body.name, workflowName: workflow.name, codebaseId: codebase?.codebaseId ?? null, signature: body.signature, inputs,
        sealedSecret: sealHookSecret(installKey(), id, body.secret),
        ...(body.github
          ? {
              github: {
                api_url: body.github.apiUrl ?? DEFAULT_GITHUB_API_URL,
                workflows: allowed,
                labels: [...new Set(body.github.labels ?? [])],
                on_issue_opened: body.github.onIssueOpened ?? false,
                deny_reply: body.github.denyReply ?? true,
                dashboard_url: body.github.dashboardUrl ?? null,
                app: body.github.app ? { app_id: body.github.app.appId, installation_id: body.github.app.installationId } : null,
              },
              sealedGithubToken: body.github.app
                ? sealGitHubAppKey(installKey(), id, body.github.app.privateKey)
                : sealGitHubToken(installKey(), id, body.github.token!),
            }
          : {}),
      });
      req.log.info({ hookId: hook.id, name: hook.name, workflow: hook.workflow_name }, 'hook.created');
      return reply.code(201).send(hookView(hook));
    },
  );

  app.get(
    '/api/hooks/:name',
    { schema: { tags: ['hooks'], summary: 'One webhook (never its secret)', params: hookParamsSchema, response: { 200: hookSchema, ...refusals } } },
    async (req) => hookView(await requireHook(req.params.name)),
  );

  app.get(
    '/api/hooks/:name/deliveries',
    {
      schema: {
        tags: ['hooks'],
        summary: 'A webhook’s admitted deliveries, newest first, each with the run it started',
        description: 'Paged with limit and offset; total counts them all. Kept until the hook is deleted, each at most webhooks.deliveryRetentionDays (default 30) after it was received. docs/webhooks.md.',
        params: hookParamsSchema, querystring: hookDeliveriesQuerySchema, response: { 200: hookDeliveryListResponseSchema, ...refusals },
      },
    },
    async (req) => {
      const hook = await requireHook(req.params.name);
      return store.listHookDeliveries(hook.id, { limit: req.query.limit ?? HOOK_DELIVERIES_DEFAULT_LIMIT, offset: req.query.offset ?? 0 });
    },
  );

  app.put(
    '/api/hooks/:name/github-token',
    {
      schema: {
        tags: ['hooks'],
        summary: 'Replace a GitHub hook’s token (never shown back)',
        description:
          'For an installation token that expired or a personal access token rotated: the new token is sealed in place of the old; ' +
          'deliveries from now on use it. A plain webhook has no token (400). docs/github.md.',
        params: hookParamsSchema, body: githubTokenBodySchema, response: { 200: hookSchema, ...refusals },
      },
    },
    async (req) => {
      const hook = await requireHook(req.params.name);
      if (!hook.github) throw new CairnError('VALIDATION_FAILED', `Webhook '${hook.name}' is not a GitHub hook: it has no token to replace (docs/github.md)`);
      if (hook.github.app) {
        throw new CairnError('VALIDATION_FAILED', `Webhook '${hook.name}' signs in as a GitHub App and makes its own tokens: there is no token to replace; to change its App or key, delete the hook and add it again (docs/github.md)`);
      }
      const replaced = await store.replaceHookGithubToken(hook.id, sealGitHubToken(installKey(), hook.id, req.body.token));
      if (!replaced) throw new CairnError('HOOK_NOT_FOUND', `Webhook '${hook.name}' was deleted meanwhile`);
      req.log.info({ hookId: hook.id, name: hook.name }, 'hook.github_token_replaced');
      return hookView(replaced);
    },
  );

  app.delete(
    '/api/hooks/:name',
    {
      schema: {
        tags: ['hooks'], summary: 'Delete a webhook and its record of deliveries (its runs stay)',
        params: hookParamsSchema, response: { 200: hookDeleteResponseSchema, ...refusals },
      },
    },
    async (req) => {
      if (!(await store.deleteHook(req.params.name))) await requireHook(req.params.name);
      req.log.info({ name: req.params.name }, 'hook.deleted');
      return { deleted: true as const, name: req.params.name };
    },
  );
};
