/**
 * What an attempt's private CODEX_HOME holds: a config.toml that names one model provider (the
 * configured server, through the attempt's relay) and turns off what a one-shot run must not do
 * (update checks, analytics, Codex's own retries), and the `--output-schema` file. Pure text.
 */

export interface CodexConfigInput {
  baseUrl: string;
  /** The environment variable holding the key; absent: no key is sent (a local server). */
  envKey?: string;
  model?: string;
  developerInstructions?: string;
}

/** The provider id the config defines. */
export const CODEX_PROVIDER_ID = 'cairn';

/** A TOML basic string: JSON's escapes are TOML's, and DEL must be escaped too. */
export function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\x7f/g, '\\u007f');
}

export function codexConfigToml(input: CodexConfigInput): string {
  const lines = [
    `model_provider = ${tomlString(CODEX_PROVIDER_ID)}`,
    ...(input.model !== undefined ? [`model = ${tomlString(input.model)}`] : []),
    ...(input.developerInstructions !== undefined ? [`developer_instructions = ${tomlString(input.developerInstructions)}`] : []),
    'check_for_update_on_startup = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    `[model_providers.${CODEX_PROVIDER_ID}]`,
    'name = "Cairn"',
    `base_url = ${tomlString(input.baseUrl)}`,
    ...(input.envKey !== undefined ? [`env_key = ${tomlString(input.envKey)}`] : []),
    'wire_api = "responses"',
    // One request per attempt: Cairn's retry policy retries, after classifying what the server said.
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ];
  return lines.join('\n');
}

/**
 * The schema as Codex needs it for `--output-schema`: the Responses API's strict mode wants
 * `additionalProperties: false` on every object, so it is added where the node left it out.
 */
export function strictSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strictSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = strictSchema(value);
  if ((out.type === 'object' || out.properties !== undefined) && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}
