import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Settings } from '../../shared/config.js';
import { editInstallConfig, type ConfigEdit } from '../../shared/install-config-file.js';
import { errorBodySchema } from '../../wire/error-body.js';
import {
  aliasesPatchBodySchema,
  assistantsPatchBodySchema,
  configResponseSchema,
  tiersPatchBodySchema,
  type ConfigView,
} from '../../wire/model-config.js';
import { defaultAssistantOf, tierDefaultsFor } from '../../models/model-binding.js';
import { envDefaultAssistantOf } from '../../models/model-layers.js';
import { readInstallModelLayer } from '../../workflow/project/model-layer-files.js';

const tags = ['config'];

/** The safe subset of the install config: models only, never a key, URL or executable path. */
export function readConfigView(configPath: string, envDefaultAssistant: string | undefined): ConfigView {
  const layer = readInstallModelLayer(configPath, envDefaultAssistant);
  const assistant = defaultAssistantOf({ install: layer });
  const assistants = Object.fromEntries(
    Object.entries(layer.assistants ?? {}).map(([id, a]) => [id, a.model === undefined ? {} : { model: a.model }]),
  );
  return {
    assistant,
    assistants,
    tiers: { ...(layer.tiers as ConfigView['tiers'] | undefined) },
    tierDefaults: { ...tierDefaultsFor(assistant) },
    aliases: { ...layer.aliases },
  };
}

/**
 * Install-scope model configuration (no identity needed): `GET /api/config` and the `PATCH`
 * routes that write `$CAIRN_HOME/config.yaml` (per-key merge, `null` unsets; comments and keys
 * Cairn does not know survive). A change applies to runs started after it.
 */
export const configRoutes: FastifyPluginAsyncZod<{ settings: Pick<Settings, 'paths' | 'providers'> }> = async (app, opts) => {
  const file = opts.settings.paths.config;
  const view = () => readConfigView(file, envDefaultAssistantOf(opts.settings.providers));
  const errors = { 400: errorBodySchema, 415: errorBodySchema };

  app.get(
    '/api/config',
    {
      schema: {
        tags,
        summary: 'The model configuration of the install (safe subset)',
        description:
          'The default assistant, per-assistant models, configured tiers and aliases, and tierDefaults: ' +
          'what an unset tier resolves to for the current default assistant. Connection settings are never shown.',
        response: { 200: configResponseSchema, 400: errorBodySchema },
      },
    },
    async () => view(),
  );

  app.patch(
    '/api/config/assistants',
    {
      schema: {
        tags,
        summary: 'Set the default assistant or per-assistant default models',
        description: '{ assistant } sets the default assistant; { assistants: { <id>: { model } } } sets (null unsets) a model.',
        body: assistantsPatchBodySchema,
        response: { 200: configResponseSchema, ...errors },
      },
    },
    async (req) => {
      const edits: ConfigEdit[] = [];
      if (req.body.assistant !== undefined) edits.push({ path: ['defaultAssistant'], value: req.body.assistant });
      for (const [id, { model }] of Object.entries(req.body.assistants ?? {})) {
        edits.push(model === null ? { path: ['assistants', id, 'model'], remove: true } : { path: ['assistants', id, 'model'], value: model });
      }
      await editInstallConfig(file, edits);
      req.log.info({ keys: edits.map((e) => e.path.join('.')) }, 'config.assistants_updated');
      return view();
    },
  );

  app.patch(
    '/api/config/tiers',
    {
      schema: {
        tags,
        summary: 'Set or unset tiers (small, medium, large) of the install',
        description: 'Per-key merge: { tiers: { large: { provider, model, effort? } } }; null unsets a tier (back to the built-in default).',
        body: tiersPatchBodySchema,
        response: { 200: configResponseSchema, ...errors },
      },
    },
    async (req) => {
      const edits = Object.entries(req.body.tiers)
        .filter(([, value]) => value !== undefined)
        .map(([tier, value]): ConfigEdit => (value === null ? { path: ['tiers', tier], remove: true } : { path: ['tiers', tier], value }));
      await editInstallConfig(file, edits);
      req.log.info({ keys: edits.map((e) => e.path.join('.')) }, 'config.tiers_updated');
      return view();
    },
  );

  app.patch(
    '/api/config/aliases',
    {
      schema: {
        tags,
        summary: 'Set or unset @aliases of the install',
        description: 'Per-key merge: { aliases: { "@fast": { provider, model, effort? } } }; null unsets an alias.',
        body: aliasesPatchBodySchema,
        response: { 200: configResponseSchema, ...errors },
      },
    },
    async (req) => {
      const edits = Object.entries(req.body.aliases).map(([name, value]): ConfigEdit =>
        value === null ? { path: ['aliases', name], remove: true } : { path: ['aliases', name], value },
      );
      await editInstallConfig(file, edits);
      req.log.info({ keys: edits.map((e) => e.path.join('.')) }, 'config.aliases_updated');
      return view();
    },
  );
};
