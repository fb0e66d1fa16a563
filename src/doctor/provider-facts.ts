import type { ExecutableLookup } from '../worker/providers/common/cli-process.js';
import type { ProviderId } from '../shared/providers/registry.js';

/**
 * What `cairn doctor` needs to know of each provider beyond the provider settings: how its CLI is
 * found (the adapter's own lookup, loaded only when the check runs), how it is installed, and the
 * settings that carry its key and its server, in the order the settings read them
 * (shared/providers/provider-settings.ts).
 */

export type CliProviderId = Exclude<ProviderId, 'anthropic' | 'openai-compatible'>;

type Resolver = (binaryPath: string | undefined, pathEnv: string | undefined) => ExecutableLookup;

export interface CliFacts {
  /** `CLAUDE_BIN_PATH`: wins over the config key. */
  binEnv: string;
  /** `assistants.claude.claudeBinaryPath` */
  binConfigKey: string;
  /** The npm package that installs it. */
  npmPackage: string;
  /** The adapter's lookup: configured path, the npm package next to Cairn, then PATH. */
  resolver(): Promise<Resolver>;
}

export const cliFacts: Readonly<Record<CliProviderId, CliFacts>> = {
  claude: {
    binEnv: 'CLAUDE_BIN_PATH',
    binConfigKey: 'assistants.claude.claudeBinaryPath',
    npmPackage: '@anthropic-ai/claude-code',
    resolver: async () => (await import('../worker/providers/claude/adapter.js')).resolveClaudeExecutable,
  },
  codex: {
    binEnv: 'CODEX_BIN_PATH',
    binConfigKey: 'assistants.codex.codexBinaryPath',
    npmPackage: '@openai/codex',
    resolver: async () => (await import('../worker/providers/codex/adapter.js')).resolveCodexExecutable,
  },
  opencode: {
    binEnv: 'OPENCODE_BIN_PATH',
    binConfigKey: 'assistants.opencode.opencodeBinaryPath',
    npmPackage: 'opencode-ai',
    resolver: async () => (await import('../worker/providers/opencode/adapter.js')).resolveOpencodeExecutable,
  },
  pi: {
    binEnv: 'PI_BIN_PATH',
    binConfigKey: 'assistants.pi.piBinaryPath',
    npmPackage: '@mariozechner/pi-coding-agent',
    resolver: async () => (await import('../worker/providers/pi/adapter.js')).resolvePiExecutable,
  },
  copilot: {
    binEnv: 'COPILOT_BIN_PATH',
    binConfigKey: 'assistants.copilot.copilotBinaryPath',
    npmPackage: '@github/copilot',
    resolver: async () => (await import('../worker/providers/copilot/adapter.js')).resolveCopilotExecutable,
  },
  gemini: {
    binEnv: 'GEMINI_BIN_PATH',
    binConfigKey: 'assistants.gemini.geminiBinaryPath',
    npmPackage: '@google/gemini-cli',
    resolver: async () => (await import('../worker/providers/gemini/adapter.js')).resolveGeminiExecutable,
  },
};

export function isCliProvider(id: ProviderId): id is CliProviderId {
  return id in cliFacts;
}

/**
 * The environment variables that give a provider its key, as the settings read them (the
 * config key `assistants.<id>.apiKey` wins over them). Claude Code reads its own from the
 * environment passed through to it.
 */
export const keyEnv: Readonly<Record<ProviderId, readonly string[]>> = {
  claude: ['ANTHROPIC_API_KEY'],
  codex: ['CODEX_API_KEY', 'OPENAI_API_KEY'],
  opencode: ['OPENAI_API_KEY'],
  pi: ['OPENAI_API_KEY'],
  copilot: ['COPILOT_PROVIDER_API_KEY', 'OPENAI_API_KEY'],
  gemini: ['GEMINI_API_KEY'],
  anthropic: ['ANTHROPIC_API_KEY'],
  'openai-compatible': ['OPENAI_API_KEY'],
};

/** The environment variables that point a provider at a server (the config key `assistants.<id>.baseUrl` wins). */
export const baseUrlEnv: Readonly<Record<ProviderId, readonly string[]>> = {
  claude: ['ANTHROPIC_BASE_URL'],
  codex: ['OPENAI_BASE_URL'],
  opencode: ['OPENAI_BASE_URL'],
  pi: ['OPENAI_BASE_URL'],
  copilot: ['COPILOT_PROVIDER_BASE_URL', 'OPENAI_BASE_URL'],
  gemini: ['GOOGLE_GEMINI_BASE_URL'],
  anthropic: ['ANTHROPIC_BASE_URL'],
  'openai-compatible': ['OPENAI_BASE_URL'],
};

/** The first setting (config key, then the environment variables) that holds a value, and its name. */
export function firstSet(
  configValue: string | undefined,
  configKey: string,
  env: NodeJS.ProcessEnv,
  names: readonly string[],
): { value: string; from: string } | undefined {
  if (configValue !== undefined && configValue.trim() !== '') return { value: configValue.trim(), from: `${configKey} in config.yaml` };
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { value, from: name };
  }
  return undefined;
}
