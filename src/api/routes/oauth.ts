import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { SubscriptionLogin } from '../../credentials/oauth/subscription-login.js';
import { oauthPollBodySchema, oauthPollResponseSchema, oauthStartResponseSchema, vendorParamsSchema } from '../../wire/auth-providers.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { requireUser } from '../callers/identity.js';

export interface OAuthRoutesOptions {
  logins: SubscriptionLogin;
}

/** `/api/auth/providers/{provider}/oauth/*`: subscription login, manual (PKCE, pasted code) or device (RFC 8628). */
export const oauthRoutes: FastifyPluginAsyncZod<OAuthRoutesOptions> = async (app, { logins }) => {
  app.post(
    '/api/auth/providers/:provider/oauth/start',
    {
      schema: {
        tags: ['credentials'],
        summary: 'Start a subscription login',
        description:
          'Needs X-Service-User. mode manual: open url, authorize, then send the code shown in poll (once). ' +
          'mode device: enter userCode at verificationUri while polling every interval seconds. expiresIn is in ' +
          'seconds. 400 for a vendor without subscription login (anthropic, github-copilot and openai have one).',
        params: vendorParamsSchema,
        response: { 200: oauthStartResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 502: errorBodySchema },
      },
    },
    async (req) => logins.start(requireUser(req), req.params.provider),
  );

  app.post(
    '/api/auth/providers/:provider/oauth/poll',
    {
      schema: {
        tags: ['credentials'],
        summary: 'Poll a subscription login (and hand in the pasted code, for mode manual)',
        description:
          'status pending, connected (the login is stored as the user’s credential for the vendor, kind oauth) ' +
          'or error with detail. A manual login’s code is exchanged once: a login whose exchange failed is started again.',
        params: vendorParamsSchema,
        body: oauthPollBodySchema,
        response: { 200: oauthPollResponseSchema, 400: errorBodySchema, 401: errorBodySchema, 404: errorBodySchema, 413: errorBodySchema, 415: errorBodySchema },
      },
    },
    async (req) => logins.poll(requireUser(req), req.params.provider, req.body.sessionId, req.body.code),
  );
};
