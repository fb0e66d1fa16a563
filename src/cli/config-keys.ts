import { usageError } from '../terminal/cli-error.js';

/**
 * The keys of `cairn config get|set|unset` and the requests they make. Two layers: the install's
 * config (`$CAIRN_HOME/config.yaml` through `/api/config*`) and, with `--user`, that user's
 * preferences (`/api/auth/me/ai-prefs*`). A key's own names (a tier, an alias, an assistant id)
 * are checked by the server, whose 400 names what is wrong.
 */

export type Layer = 'install' | 'user';

/** A key as parsed: which setting, and for tiers, aliases and assistants which entry. */
export type ConfigKey =
  | { kind: 'assistant' }
  | { kind: 'default' }
  | { kind: 'assistantModel'; id: string }
  | { kind: 'tier' | 'alias'; name: string }
  | { kind: 'tierDefault'; name: string };

export const keysHelp = {
  install: ['assistant', 'assistants.<id>.model', 'tiers.small|medium|large', 'aliases.@<name>', 'tierDefaults.<tier> (read only)'],
  user: ['default', 'tiers.small|medium|large', 'aliases.@<name>'],
} as const;

function unknownKey(key: string, layer: Layer, command: string): never {
  const hint =
    layer === 'user'
      ? `A user's keys are ${keysHelp.user.join(', ')}.`
      : `The install's keys are ${keysHelp.install.join(', ')}; with --user <id>, ${keysHelp.user.join(', ')}.`;
  throw usageError(`Unknown key '${key}'. ${hint}`, command);
}

/** Parses a key for the layer, or a usage error naming the keys the layer has. */
export function parseConfigKey(key: string, layer: Layer, command: string): ConfigKey {
  if (layer === 'install' && key === 'assistant') return { kind: 'assistant' };
  if (layer === 'user' && key === 'default') return { kind: 'default' };
  const dot = key.indexOf('.');
  const group = dot === -1 ? key : key.slice(0, dot);
  const rest = dot === -1 ? '' : key.slice(dot + 1);
  if (rest !== '' && group === 'tiers') return { kind: 'tier', name: rest };
  if (rest !== '' && group === 'aliases') return { kind: 'alias', name: rest };
  if (rest !== '' && group === 'tierDefaults' && layer === 'install') return { kind: 'tierDefault', name: rest };
  const model = /^assistants\.([^.]+)\.model$/.exec(key);
  if (model && layer === 'install') return { kind: 'assistantModel', id: model[1]! };
  return unknownKey(key, layer, command);
}

/** A tier's or alias's value as the routes take it. */
export interface Preset {
  provider: string;
  model: string;
  effort?: string;
}

/** `<provider>/<model>`: the provider is what comes before the first `/` (a model id may hold more). */
export function parsePreset(value: string, effort: string | undefined, key: string, command: string): Preset {
  const slash = value.indexOf('/');
  const provider = slash > 0 ? value.slice(0, slash).trim() : '';
  const model = slash > 0 ? value.slice(slash + 1).trim() : '';
  if (provider === '' || model === '') {
    throw usageError(`The value of ${key} is <provider>/<model>, such as claude/claude-opus-4-7; got '${value}'.`, command);
  }
  return { provider, model, ...(effort !== undefined ? { effort } : {}) };
}

/** A request to the server: the method is always PATCH; the route answers the layer as it now is. */
export interface ConfigWrite {
  path: string;
  body: unknown;
}

const routes = {
  install: { tiers: '/api/config/tiers', aliases: '/api/config/aliases', assistants: '/api/config/assistants' },
  user: { tiers: '/api/auth/me/ai-prefs/tiers', aliases: '/api/auth/me/ai-prefs/aliases', default: '/api/auth/me/ai-prefs/default' },
} as const;

function readOnly(key: string, command: string): never {
  throw usageError(`${key} is read only: it is what an unset tier resolves to. Set tiers.<tier> to change it.`, command);
}

/** The write that sets `key` to `value` (and `--effort`, for a tier or alias). */
export function setRequest(key: ConfigKey, raw: { key: string; value: string; effort: string | undefined }, layer: Layer, command: string): ConfigWrite {
  const { value, effort } = raw;
  if (effort !== undefined && key.kind !== 'tier' && key.kind !== 'alias') {
    throw usageError(`--effort applies to a tier or an alias, not to ${raw.key}.`, command);
  }
  switch (key.kind) {
    case 'tier':
      return { path: routes[layer].tiers, body: { tiers: { [key.name]: parsePreset(value, effort, raw.key, command) } } };
    case 'alias':
      return { path: routes[layer].aliases, body: { aliases: { [key.name]: parsePreset(value, effort, raw.key, command) } } };
    case 'assistant':
      return { path: routes.install.assistants, body: { assistant: value } };
    case 'assistantModel':
      return { path: routes.install.assistants, body: { assistants: { [key.id]: { model: value } } } };
    case 'default': {
      const slash = value.indexOf('/');
      const provider = slash === -1 ? value : value.slice(0, slash);
      const model = slash === -1 ? undefined : value.slice(slash + 1);
      if (provider.trim() === '' || model?.trim() === '') {
        throw usageError(`The value of default is <provider> or <provider>/<model>, such as claude or codex/gpt-5.5; got '${value}'.`, command);
      }
      return { path: routes.user.default, body: { provider, ...(model !== undefined ? { model } : {}) } };
    }
    case 'tierDefault':
      return readOnly(raw.key, command);
  }
}

/** The write that unsets `key`: the layer below (or the built-in default) applies again. */
export function unsetRequest(key: ConfigKey, rawKey: string, layer: Layer, command: string): ConfigWrite {
  switch (key.kind) {
    case 'tier':
      return { path: routes[layer].tiers, body: { tiers: { [key.name]: null } } };
    case 'alias':
      return { path: routes[layer].aliases, body: { aliases: { [key.name]: null } } };
    case 'assistantModel':
      return { path: routes.install.assistants, body: { assistants: { [key.id]: { model: null } } } };
    case 'default':
      return { path: routes.user.default, body: null };
    case 'assistant':
      throw usageError(
        "The install's default assistant cannot be unset through the server: set another one (`cairn config set assistant <id>`), or remove defaultAssistant from $CAIRN_HOME/config.yaml.",
        command,
      );
    case 'tierDefault':
      return readOnly(rawKey, command);
  }
}

/** A tier or alias value for display: a string spec as written, an object as `provider/model (effort e)`. */
export function formatPreset(value: unknown): string {
  if (typeof value === 'string') return value;
  const preset = value as Preset;
  return `${preset.provider}/${preset.model}${preset.effort ? ` (effort ${preset.effort})` : ''}`;
}

/** Every key of a layer's answer with its value, in a stable order, for `cairn config get`. */
export function flattenConfig(view: Record<string, unknown>, layer: Layer): [string, string][] {
  const lines: [string, string][] = [];
  const presets = (group: string) => {
    const map = (view[group] ?? {}) as Record<string, unknown>;
    for (const name of Object.keys(map).sort()) lines.push([`${group}.${name}`, formatPreset(map[name])]);
  };
  if (layer === 'install') {
    lines.push(['assistant', String(view.assistant)]);
    const assistants = (view.assistants ?? {}) as Record<string, { model?: string }>;
    for (const id of Object.keys(assistants).sort()) {
      const model = assistants[id]?.model;
      if (model !== undefined) lines.push([`assistants.${id}.model`, model]);
    }
    presets('tiers');
    presets('aliases');
    presets('tierDefaults');
  } else {
    if (view.defaultProvider !== undefined) {
      lines.push(['default', `${String(view.defaultProvider)}${view.defaultModel !== undefined ? `/${String(view.defaultModel)}` : ''}`]);
    }
    presets('tiers');
    presets('aliases');
  }
  return lines;
}

/** The value of one key in a layer's answer; undefined when it is not set. */
export function lookUp(view: Record<string, unknown>, key: ConfigKey, rawKey: string, layer: Layer): string | undefined {
  return flattenConfig(view, layer).find(([name]) => name === rawKey || (key.kind === 'default' && name === 'default'))?.[1];
}
