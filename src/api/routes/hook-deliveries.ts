import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CairnError } from '../../shared/errors.js';
import type { InstallKey } from '../../shared/secrets/install-key.js';
import type { Store } from '../../store/store.js';
import { openHookSecret } from '../../hooks/hook-secret.js';
import { verifyDelivery } from '../../hooks/hook-signature.js';
import { hookRunOf } from '../../runs/hook-run.js';
import type { WorkflowCatalog } from '../../workflow/catalog/catalog.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { deliveryResponseSchema, hookParamsSchema } from '../../wire/hooks.js';
import { checkJsonDepth } from '../requests/json-depth.js';
import { checkWellFormedText } from '../requests/well-formed-text.js';
import { lookupWorkflow } from '../workflow-files/workflow-lookup.js';
import { takeGitHubDelivery, GitHubAnswers } from '../../github/github-admission.js';
import type { GitHubStatusFollower, RetryPolicy } from '../../github/status-follower.js';

export interface HookDeliveryRoutesOptions {
  store: Store;
  catalog: WorkflowCatalog;
  installKey: () => InstallKey;
  clock: () => number;
  /** Keeps the status comments of GitHub hooks' runs (docs/github.md). */
  follower: GitHubStatusFollower;
  /** How a GitHub hook's reaction and reply are retried (default DEFAULT_RETRY). */
  githubRetry?: RetryPolicy;
}

/**
 * `POST /api/hooks/{name}`: a delivery. The body is taken as raw bytes whatever its content type
 * (this plugin's own parser: the signature is over the bytes as sent), and nothing is read from it
 * before its signature is checked. Then, in order: a delivery id admitted before answers its first
 * run (200); the body is parsed as JSON and mapped onto the workflow's inputs (400, 422); and the
 * run is queued with the delivery id in one transaction (202). A GitHub hook's delivery goes to
 * github/github-admission.ts instead, after the same checks: it starts a run (202) or is recorded
 * as ignored with its reason (200). The caller checks (Host, Origin) apply as to every route:
 * senders are servers, which send no Origin.
 */
export const hookDeliveryRoutes: FastifyPluginAsyncZod<HookDeliveryRoutesOptions> = async (app, { store, catalog, installKey, clock, follower, githubRetry }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  const lookup = (name: string, query: { cwd?: string | undefined }) => lookupWorkflow(catalog, name, query);
  const githubAnswers = new GitHubAnswers(clock);

  app.post(
    '/api/hooks/:name',
    {
      schema: {
        tags: ['hooks'],
        summary: 'A webhook delivery: starts one run per delivery id',
        description:
          'Signed over the raw body with the hook’s secret: github form `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>` ' +
          'with `X-GitHub-Delivery`; generic form `X-Cairn-Timestamp: <unix seconds>`, `X-Cairn-Signature: sha256=<hex ' +
          'HMAC-SHA256(secret, "<timestamp>.<body>")>` (at most 5 minutes old) and `X-Cairn-Delivery`. The body is JSON. A bad or ' +
          'missing signature is 401 and nothing is stored. A new delivery is answered 202 with the run it queued; the same ' +
          'delivery id sent again (also after a restart) is answered 200 with the first run, and starts none. A payload that does ' +
          'not map onto the workflow’s inputs is 422 naming the input; nothing is admitted. A GitHub hook (docs/github.md) answers ' +
          '200 with `ignored` (its reason, also kept in the delivery record) for an event that starts nothing, and 502 ' +
          'GITHUB_UNAVAILABLE when GitHub could not be asked the sender’s permission. docs/webhooks.md.',
        params: hookParamsSchema,
        response: { 200: deliveryResponseSchema, 202: deliveryResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 404: errorBodySchema, 409: errorBodySchema, 422: errorBodySchema, 502: errorBodySchema },
      },
    },
    async (req, reply) => {
      const hook = await store.getHook(req.params.name);
      if (!hook) throw new CairnError('HOOK_NOT_FOUND', `No webhook is named '${req.params.name}'`);
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const header = (name: string) => {
        const value = req.headers[name];
        return Array.isArray(value) ? value.join(', ') : value;
      };
      const { deliveryId } = verifyDelivery(hook.signature, openHookSecret(installKey(), hook), header, raw, clock());

      const answer = (status: 200 | 202, runId: string | null, ignored?: string | null) =>
        reply.code(status).send({ runId, deliveryId, duplicate: status === 200, ...(ignored ? { ignored } : {}) });
      const seen = await store.getHookDelivery(hook.id, deliveryId);
      if (seen) {
        req.log.info({ hookId: hook.id, deliveryId, runId: seen.run_id }, 'hook.delivery_repeated');
        return answer(200, seen.run_id, seen.ignored);
      }

      let payload: unknown;
      try {
        payload = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new CairnError('INVALID_JSON', `Webhook '${hook.name}': the body is not JSON (a GitHub webhook's content type must be application/json)`);
      }
      checkJsonDepth(payload, 'The delivery');
      checkWellFormedText(payload, 'The delivery');
      if (hook.github) {
        const taken = await takeGitHubDelivery({ store, lookup, clock, installKey, follower, log: req.log, ...(githubRetry ? { retry: githubRetry } : {}) }, githubAnswers, hook, {
          id: deliveryId, event: header('x-github-event'), payload, dashboardUrl: `${req.protocol}://${req.host}`,
        });
        return reply.code(taken.runId !== null && !taken.duplicate ? 202 : 200).send({ ...taken, deliveryId });
      }
      const run = await hookRunOf({ store, lookup, clock }, hook, { id: deliveryId, payload });
      const admitted = await store.admitHookDelivery({ hookId: hook.id, deliveryId, run });
      if ('why' in admitted) throw new CairnError('HOOK_NOT_FOUND', `Webhook '${hook.name}' was deleted meanwhile`);
      req.log.info({ hookId: hook.id, deliveryId, runId: admitted.delivery.run_id, admitted: admitted.admitted }, 'hook.delivery');
      return answer(admitted.admitted ? 202 : 200, admitted.delivery.run_id, admitted.delivery.ignored);
    },
  );
};
