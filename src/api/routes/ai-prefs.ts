import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AiPrefs, Store } from '../../store/store.js';
import { errorBodySchema } from '../../wire/error-body.js';
import {
  aiPrefsDefaultBodySchema,
  aiPrefsResponseSchema,
  aliasesPatchBodySchema,
  tiersPatchBodySchema,
} from '../../wire/model-config.js';
import { requireUser } from '../callers/identity.js';

const tags = ['ai-prefs'];

/**
 * Per-user AI preferences (identity required: X-Service-User, else 401): the raw personal layer,
 * highest in model resolution after a run's own. Each write is one transaction and answers the
 * updated prefs.
 */
export const aiPrefsRoutes: FastifyPluginAsyncZod<{ store: Store }> = async (app, { store }) => {
  const errors = { 400: errorBodySchema, 401: errorBodySchema, 415: errorBodySchema };
  const view = (prefs: AiPrefs) => prefs;
  // Before the body is read: a request without an identity is a 401 whatever it sends.
  app.addHook('onRequest', async (req) => {
    requireUser(req);
  });

  app.get(
    '/api/auth/me/ai-prefs',
    {
      schema: {
        tags,
        summary: 'The user’s stored AI preferences (raw layer, not merged)',
        response: { 200: aiPrefsResponseSchema, 400: errorBodySchema, 401: errorBodySchema },
      },
    },
    async (req) => view(await store.getAiPrefs(requireUser(req))),
  );

  app.patch(
    '/api/auth/me/ai-prefs/tiers',
    {
      schema: {
        tags,
        summary: 'Set or unset the user’s tiers',
        description: 'Per-key merge: { tiers: { large: { provider, model, effort? } } }; null unsets.',
        body: tiersPatchBodySchema,
        response: { 200: aiPrefsResponseSchema, ...errors },
      },
    },
    async (req) => {
      const user = requireUser(req);
      const entries = Object.fromEntries(Object.entries(req.body.tiers).filter(([, v]) => v !== undefined)) as Record<string, { provider: string; model: string } | null>;
      return view(await store.patchAiPrefs(user, { kind: 'tiers', entries }));
    },
  );

  app.patch(
    '/api/auth/me/ai-prefs/aliases',
    {
      schema: {
        tags,
        summary: 'Set or unset the user’s @aliases',
        description: 'Per-key merge: { aliases: { "@fast": { provider, model, effort? } } }; null unsets.',
        body: aliasesPatchBodySchema,
        response: { 200: aiPrefsResponseSchema, ...errors },
      },
    },
    async (req) => {
      const user = requireUser(req);
      return view(await store.patchAiPrefs(user, { kind: 'aliases', entries: req.body.aliases }));
    },
  );

  app.patch(
    '/api/auth/me/ai-prefs/default',
    {
      schema: {
        tags,
        summary: 'Set or clear the user’s default assistant and model',
        description:
          '{ provider, model? } sets the default assistant (an omitted model clears any pinned model); ' +
          'null or { provider: null } clears both; model without provider is refused.',
        body: aiPrefsDefaultBodySchema,
        response: { 200: aiPrefsResponseSchema, ...errors },
      },
    },
    async (req) => {
      const user = requireUser(req);
      const body = req.body;
      const value =
        body === null || body === undefined || body.provider === null || body.provider === undefined
          ? null
          : { provider: body.provider, ...(body.model !== null && body.model !== undefined ? { model: body.model } : {}) };
      return view(await store.patchAiPrefs(user, { kind: 'default', value }));
    },
  );
};
