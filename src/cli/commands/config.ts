import { z } from 'zod';
import { expectPositionals, parseCommandArgs } from '../args.js';
import { CliError } from '../../terminal/cli-error.js';
import { writeLine, type CliContext } from '../../terminal/context.js';
import { flattenConfig, keysHelp, lookUp, parseConfigKey, setRequest, unsetRequest, type Layer } from '../config-keys.js';
import type { ApiClient } from '../api-client.js';
import { printHelp, printJson, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption, userFor, userOption } from './server-flags.js';

/**
 * `cairn config get|set|unset`: the model settings the server keeps, in the install's config or
 * (with --user) in one user's preferences. The answers are read loosely here: config-keys.ts
 * shows them, `--json` prints them as sent.
 */
const layerAnswer = z.record(z.string(), z.unknown());

const readPath: Record<Layer, string> = { install: '/api/config', user: '/api/auth/me/ai-prefs' };

const keysText = `Keys of the install (\$CAIRN_HOME/config.yaml; no --user):
  assistant                 the default assistant (claude, codex, ...)
  assistants.<id>.model     the default model of assistant <id>
  tiers.small|medium|large  a tier: <provider>/<model> [--effort <effort>]
  aliases.@<name>           an alias: <provider>/<model> [--effort <effort>]
  tierDefaults.<tier>       what an unset tier resolves to (read only)
Keys of a user (--user <id>, else CAIRN_USER; highest after a run's own):
  default                   the user's default assistant: <provider> or <provider>/<model>
  tiers.small|medium|large  as above
  aliases.@<name>           as above
No key holds a secret: API keys are connected with \`cairn auth add\` and never shown.`;

const layerOptions = `  --user <id>        the settings of this user (X-Service-User) instead of the install's;
                     CAIRN_USER does not select them, --user does
  --json             print the server's JSON answer (the layer as it now is)
${serverOptionsHelp}`;

function layerOf(ctx: CliContext, flag: string | undefined, command: string): { layer: Layer; user: string | undefined } {
  if (flag === undefined) return { layer: 'install', user: undefined };
  return { layer: 'user', user: userFor(ctx, flag, command) };
}

function where(layer: Layer, user: string | undefined): string {
  return layer === 'user' ? `user ${user}` : 'install config';
}

async function readLayer(client: ApiClient, layer: Layer) {
  return client.request('GET', readPath[layer], layerAnswer);
}

export const configGetCommand: Command = {
  name: 'config get',
  summary: 'show the model settings (default assistant, tiers, aliases), or one of them',
  help: `Usage: cairn config get [<key>] [--user <id>] [--json] [--url <url>]

Show the model settings the server keeps: every key as \`key = value\`, or the value of <key>
alone (exit 1 when it is not set). Without --user, the install's; with it, that user's.

${keysText}

Options:
${layerOptions}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { json: { type: 'boolean' }, ...userOption, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    const [key] = positionals.length ? expectPositionals(this.name, positionals, ['key']) : [];
    const { layer, user } = layerOf(ctx, values.user, this.name);
    const parsed = key === undefined ? undefined : parseConfigKey(key, layer, this.name);
    const { raw, body } = await readLayer(clientFor(ctx, values.url, user), layer);
    if (values.json) return printJson(ctx, raw);
    if (parsed && key !== undefined) {
      const value = lookUp(body, parsed, key, layer);
      if (value === undefined) throw new CliError('CONFIG_KEY_UNSET', `${key} is not set in the ${where(layer, user)}.`);
      writeLine(ctx.stdout, value);
      return 0;
    }
    const lines = flattenConfig(body, layer);
    if (lines.length === 0) writeLine(ctx.stdout, `Nothing is set for ${where(layer, user)}.`);
    for (const [name, value] of lines) writeLine(ctx.stdout, `${name} = ${value}`);
    return 0;
  },
};

/** Sends a write and prints the key as the server now has it. */
async function write(
  ctx: CliContext,
  values: { url?: string | undefined; json?: boolean | undefined },
  request: { path: string; body: unknown },
  show: { key: string; layer: Layer; user: string | undefined; parsed: ReturnType<typeof parseConfigKey> },
): Promise<number> {
  const { raw, body } = await clientFor(ctx, values.url, show.user).request('PATCH', request.path, layerAnswer, { body: request.body });
  if (values.json) return printJson(ctx, raw);
  const value = lookUp(body, show.parsed, show.key, show.layer);
  writeLine(ctx.stdout, value === undefined ? `${show.key} is unset (${where(show.layer, show.user)}).` : `${show.key} = ${value} (${where(show.layer, show.user)})`);
  return 0;
}

export const configSetCommand: Command = {
  name: 'config set',
  summary: 'set a model setting: the default assistant, a tier, an alias',
  help: `Usage: cairn config set <key> <value> [--effort <effort>] [--user <id>] [--json] [--url <url>]

Set one key (the keys are listed below); the server checks the provider, the model id, the
effort and the alias name, and names what it refuses. A change applies to runs started after it.
Prints the key as the server now has it.

${keysText}

Options:
  --effort <effort>  a tier's or alias's reasoning effort (one the provider takes, e.g. high)
${layerOptions}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      effort: { type: 'string' },
      json: { type: 'boolean' },
      ...userOption,
      ...urlOption,
    });
    if (values.help) return printHelp(ctx, this.help);
    const [key, value] = expectPositionals(this.name, positionals, ['key', 'value']) as [string, string];
    const { layer, user } = layerOf(ctx, values.user, this.name);
    const parsed = parseConfigKey(key, layer, this.name);
    const request = setRequest(parsed, { key, value, effort: values.effort }, layer, this.name);
    return write(ctx, values, request, { key, layer, user, parsed });
  },
};

export const configUnsetCommand: Command = {
  name: 'config unset',
  summary: 'unset a model setting, so the layer below applies again',
  help: `Usage: cairn config unset <key> [--user <id>] [--json] [--url <url>]

Unset one key: a tier falls back to the layer below (in the end the built-in default), an alias
is removed, a user's default is cleared. Unsetting a key that is not set succeeds. The install's
assistant cannot be unset (set another one instead).

Keys: ${keysHelp.install.slice(0, 4).join(', ')}; with --user, ${keysHelp.user.join(', ')}.

Options:
${layerOptions}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { json: { type: 'boolean' }, ...userOption, ...urlOption });
    if (values.help) return printHelp(ctx, this.help);
    const [key] = expectPositionals(this.name, positionals, ['key']) as [string];
    const { layer, user } = layerOf(ctx, values.user, this.name);
    const parsed = parseConfigKey(key, layer, this.name);
    return write(ctx, values, unsetRequest(parsed, key, layer, this.name), { key, layer, user, parsed });
  },
};
