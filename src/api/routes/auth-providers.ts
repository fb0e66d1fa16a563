import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sealCredential } from '../../credentials/credential-seal.js';
import { buildAgentMatrix, listAvailableVendors, listSubscriptionVendors } from '../../credentials/provider-matrix.js';
import { CairnError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import { describeUnknownVendor, getCredentialVendor, normaliseVendorId } from '../../shared/providers/credential-vendors.js';
import type { ProviderSettings } from '../../shared/providers/provider-settings.js';
import type { InstallKey } from '../../shared/secrets/install-key.js';
import type { Store } from '../../store/store.js';
import { providersWithAdapter } from '../../shared/providers/available.js';
import {
  authProvidersResponseSchema,
  connectKeyBodySchema,
  connectKeyResponseSchema,
  disconnectResponseSchema,
  vendorParamsSchema,
} from '../../wire/auth-providers.js';
import { errorBodySchema } from '../../wire/error-body.js';
import { requireUser } from '../callers/identity.js';

export interface AuthProviderRoutesOptions {
  store: Store;
  installKey: () => InstallKey;
  providers: ProviderSettings;
  /** The server's environment, for `installEnv` and the CLIs' own logins (presence only). */
  env: NodeJS.ProcessEnv;
  log: Logger;
}

const perUser = { 400: errorBodySchema, 401: errorBodySchema };

/** The vendor a write names (legacy assistant ids normalised), or a 400 listing the known ones. */
export function vendorOf(param: string): string {
  const vendor = normaliseVendorId(param);
  if (vendor === undefined) throw new CairnError('CREDENTIAL_INVALID', describeUnknownVendor(param));
  return vendor;
}

/** `/api/auth/providers`: the user's provider credentials (API keys); subscription logins are oauth.ts. */
export const authProviderRoutes: FastifyPluginAsyncZod<AuthProviderRoutesOptions> = async (app, opts) => {
  app.get(
    '/api/auth/providers',
    {
      schema: {
        tags: ['credentials'],
        summary: 'The user’s provider connections, the vendors a key can be connected for, and the agent matrix',
        description: 'Needs X-Service-User. Metadata only: no secret value is ever returned.',
        response: { 200: authProvidersResponseSchema, ...perUser },
      },
    },
    async (req) => {
      const user = requireUser(req);
      const stored = await opts.store.listCredentials(user);
      return {
        enabled: true,
        connections: stored.map((c) => ({ provider: c.vendor, kind: c.kind, label: c.label })),
        available: listAvailableVendors(),
        subscriptionAvailable: listSubscriptionVendors(),
        agents: buildAgentMatrix({
          env: opts.env,
          providers: opts.providers,
          connected: new Set(stored.map((c) => c.vendor)),
          withAdapter: providersWithAdapter,
        }),
      };
    },
  );

  app.put(
    '/api/auth/providers/:provider',
    {
      schema: {
        tags: ['credentials'],
        summary: 'Connect an API key for a vendor (replacing the user’s previous one)',
        description:
          'Needs X-Service-User. The key is sealed with the install key (AES-256-GCM) before it is stored, ' +
          'and is used for this user’s runs on that vendor’s providers. Legacy ids claude, codex and copilot ' +
          'are normalised to anthropic, openai and github-copilot.',
        params: vendorParamsSchema,
        body: connectKeyBodySchema,
        response: { 200: connectKeyResponseSchema, ...perUser, 413: errorBodySchema, 415: errorBodySchema },
      },
    },
    async (req) => {
      const user = requireUser(req);
      const vendor = vendorOf(req.params.provider);
      const label = req.body.label || `${getCredentialVendor(vendor)?.displayName ?? vendor} API key`;
      await opts.store.putCredential(sealCredential(opts.installKey(), user, { vendor, kind: 'api_key', label, secret: req.body.apiKey }));
      opts.log.info({ userId: user, vendor, kind: 'api_key' }, 'credentials.connected');
      return { success: true as const, provider: vendor, kind: 'api_key' as const, label };
    },
  );

  app.delete(
    '/api/auth/providers/:provider',
    {
      schema: {
        tags: ['credentials'],
        summary: 'Disconnect the user’s credential for a vendor (idempotent)',
        description: 'Needs X-Service-User. Answers success also when nothing was connected.',
        params: vendorParamsSchema,
        response: { 200: disconnectResponseSchema, ...perUser },
      },
    },
    async (req) => {
      const user = requireUser(req);
      const vendor = vendorOf(req.params.provider);
      if (await opts.store.deleteCredential(user, vendor)) opts.log.info({ userId: user, vendor }, 'credentials.disconnected');
      return { success: true as const };
    },
  );
};
