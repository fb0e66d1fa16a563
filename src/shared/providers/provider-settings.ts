import { z } from 'zod';
import { positiveIntFromEnv } from '../env-settings.js';
import { secretValuesOfEnv } from '../secret-mask.js';

/**
 * What the install config (`$CAIRN_HOME/config.yaml`) and the environment say about AI
 * providers: the default assistant, each assistant's model and connection, per-provider
 * concurrency limits and the watchdogs. Config keys override environment variables.
 */

export const assistantConfigSchema = z
  .object({
    model: z.string().trim().min(1).optional(),
    /** Claude Code: the CLI executable (CLAUDE_BIN_PATH wins over it). */
    claudeBinaryPath: z.string().trim().min(1).optional(),
    /** Codex: the CLI executable (CODEX_BIN_PATH wins over it). */
    codexBinaryPath: z.string().trim().min(1).optional(),
    /** Gemini CLI: the CLI executable (GEMINI_BIN_PATH wins over it). */
    geminiBinaryPath: z.string().trim().min(1).optional(),
    /** OpenCode: the CLI executable (OPENCODE_BIN_PATH wins over it). */
    opencodeBinaryPath: z.string().trim().min(1).optional(),
    /** Pi: the CLI executable (PI_BIN_PATH wins over it). */
    piBinaryPath: z.string().trim().min(1).optional(),
    /** GitHub Copilot CLI: the CLI executable (COPILOT_BIN_PATH wins over it). */
    copilotBinaryPath: z.string().trim().min(1).optional(),
    /** API providers and CLIs pointed at another server: overrides *_BASE_URL. */
    baseUrl: z.string().trim().min(1).optional(),
    /** Overrides *_API_KEY. Never logged, never recorded. */
    apiKey: z.string().trim().min(1).optional(),
  })
  .loose();
export type AssistantConfig = z.infer<typeof assistantConfigSchema>;

export const providerConfigSchema = z.object({
  defaultAssistant: z.string().trim().min(1).optional(),
  assistants: z.record(z.string(), assistantConfigSchema).optional(),
  /** `concurrency.providers.<id>`: attempts of that provider in flight, at most. */
  providerLimits: z.record(z.string(), z.number().int().positive()).optional(),
  /** `concurrency.requestsPerMinute.<id>` / `concurrency.tokensPerMinute.<id>`: that provider's rate budgets. */
  requestsPerMinute: z.record(z.string(), z.number().int().positive()).optional(),
  tokensPerMinute: z.record(z.string(), z.number().int().positive()).optional(),
});

/** The first-event watchdog's default (contract: 60 s, raised through an environment variable in ms). */
export const DEFAULT_FIRST_EVENT_TIMEOUT_MS = 60_000;
/** The idle watchdog's default when a node sets no `idle_timeout`: 30 minutes, as upstream. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;

export interface ProviderConnectionSettings {
  baseUrl?: string;
  apiKey?: string;
  binaryPath?: string;
}

export interface ProviderSettings {
  defaultAssistant: string | undefined;
  /** Whether `defaultAssistant` came from CAIRN_DEFAULT_ASSISTANT (which wins over config.yaml, even after an edit of the file). */
  defaultAssistantFromEnv?: boolean;
  assistants: Readonly<Record<string, AssistantConfig>>;
  limits: Readonly<Record<string, number>>;
  /** Per-provider budgets over a sliding minute (supervisor/run/provider-rates.ts). */
  rates: Readonly<Record<string, { requestsPerMinute?: number; tokensPerMinute?: number }>>;
  firstEventTimeoutMs: number;
  idleTimeoutMs: number;
  /** How each provider is reached: config over environment. */
  connections: Readonly<Record<string, ProviderConnectionSettings>>;
  /**
   * Providers that have a credential or a server configured (config or environment). The chat
   * answers plain messages through the default assistant only when it is in here; otherwise it
   * says how to configure one.
   */
  configured: Readonly<Record<string, boolean>>;
  /**
   * The configured secrets masked in everything a provider says before it is recorded
   * (shared/secret-mask.ts): every connection's key, from config or environment, and the values
   * of the environment's secret-looking variables (a GH token, a database password), which the
   * provider CLIs run with.
   */
  maskedSecrets: readonly string[];
}

/** Builds the provider settings from the parsed config keys and the environment. */
export function resolveProviderSettings(
  file: z.infer<typeof providerConfigSchema>,
  env: NodeJS.ProcessEnv,
): ProviderSettings {
  const assistants = file.assistants ?? {};
  const pick = (...values: (string | undefined)[]) => values.find((v) => v !== undefined && v.trim() !== '');
  const compact = (c: ProviderConnectionSettings): ProviderConnectionSettings =>
    Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)) as ProviderConnectionSettings;
  const claude = assistants.claude ?? {};
  const anthropic = assistants.anthropic ?? {};
  const openai = assistants['openai-compatible'] ?? {};
  const codex = assistants.codex ?? {};
  const gemini = assistants.gemini ?? {};
  const opencode = assistants.opencode ?? {};
  const pi = assistants.pi ?? {};
  const copilot = assistants.copilot ?? {};
  const anthropicConnection = compact({ baseUrl: pick(anthropic.baseUrl, env.ANTHROPIC_BASE_URL), apiKey: pick(anthropic.apiKey, env.ANTHROPIC_API_KEY) });
  const openAiConnection = compact({ baseUrl: pick(openai.baseUrl, env.OPENAI_BASE_URL), apiKey: pick(openai.apiKey, env.OPENAI_API_KEY) });
  const configuredKeys = Object.values(assistants).map((assistant) => assistant.apiKey);
  return {
    maskedSecrets: [...new Set([...configuredKeys, ...secretValuesOfEnv(env)].filter((s): s is string => s !== undefined))],
    defaultAssistant: env.CAIRN_DEFAULT_ASSISTANT?.trim() || file.defaultAssistant,
    defaultAssistantFromEnv: Boolean(env.CAIRN_DEFAULT_ASSISTANT?.trim()),
    assistants,
    limits: file.providerLimits ?? {},
    rates: rateBudgets(file.requestsPerMinute ?? {}, file.tokensPerMinute ?? {}),
    firstEventTimeoutMs:
      positiveIntFromEnv('CAIRN_PROVIDER_FIRST_EVENT_TIMEOUT_MS', env.CAIRN_PROVIDER_FIRST_EVENT_TIMEOUT_MS) ?? DEFAULT_FIRST_EVENT_TIMEOUT_MS,
    idleTimeoutMs: positiveIntFromEnv('CAIRN_PROVIDER_IDLE_TIMEOUT_MS', env.CAIRN_PROVIDER_IDLE_TIMEOUT_MS) ?? DEFAULT_IDLE_TIMEOUT_MS,
    connections: {
      // The CLI reads ANTHROPIC_* from the environment passed through to it; config keys are added on top.
      claude: compact({ binaryPath: pick(env.CLAUDE_BIN_PATH, claude.claudeBinaryPath), baseUrl: claude.baseUrl, apiKey: claude.apiKey }),
      // Codex ignores OPENAI_BASE_URL; the adapter points it at this server through its own config.
      codex: compact({
        binaryPath: pick(env.CODEX_BIN_PATH, codex.codexBinaryPath),
        baseUrl: pick(codex.baseUrl, env.OPENAI_BASE_URL),
        apiKey: pick(codex.apiKey, env.CODEX_API_KEY, env.OPENAI_API_KEY),
      }),
      gemini: compact({
        binaryPath: pick(env.GEMINI_BIN_PATH, gemini.geminiBinaryPath),
        baseUrl: pick(gemini.baseUrl, env.GOOGLE_GEMINI_BASE_URL),
        apiKey: pick(gemini.apiKey, env.GEMINI_API_KEY),
      }),
      // OpenCode talks to a Chat Completions server through the provider the adapter defines for it.
      opencode: compact({
        binaryPath: pick(env.OPENCODE_BIN_PATH, opencode.opencodeBinaryPath),
        baseUrl: pick(opencode.baseUrl, env.OPENAI_BASE_URL),
        apiKey: pick(opencode.apiKey, env.OPENAI_API_KEY),
      }),
      // Pi talks to a Chat Completions server through the provider the adapter defines for it.
      pi: compact({
        binaryPath: pick(env.PI_BIN_PATH, pi.piBinaryPath),
        baseUrl: pick(pi.baseUrl, env.OPENAI_BASE_URL),
        apiKey: pick(pi.apiKey, env.OPENAI_API_KEY),
      }),
      // Copilot runs with a custom model provider (a Chat Completions server), never GitHub's.
      copilot: compact({
        binaryPath: pick(env.COPILOT_BIN_PATH, copilot.copilotBinaryPath),
        baseUrl: pick(copilot.baseUrl, env.COPILOT_PROVIDER_BASE_URL, env.OPENAI_BASE_URL),
        apiKey: pick(copilot.apiKey, env.COPILOT_PROVIDER_API_KEY, env.OPENAI_API_KEY),
      }),
      anthropic: anthropicConnection,
      'openai-compatible': openAiConnection,
    },
    configured: {
      // Claude Code: a key, or an executable set explicitly (its own login lives with it).
      claude: pick(env.ANTHROPIC_API_KEY, claude.apiKey, env.CLAUDE_BIN_PATH, claude.claudeBinaryPath) !== undefined,
      // API providers: a key, or a server of one's own (a local server may need no key).
      anthropic: anthropicConnection.apiKey !== undefined || anthropicConnection.baseUrl !== undefined,
      'openai-compatible': openAiConnection.apiKey !== undefined || openAiConnection.baseUrl !== undefined,
      // The vendor CLIs: a key, or an executable set explicitly (a CLI logged in on its own).
      codex: pick(codex.apiKey, env.CODEX_API_KEY, env.OPENAI_API_KEY, env.CODEX_BIN_PATH, codex.codexBinaryPath) !== undefined,
      gemini: pick(gemini.apiKey, env.GEMINI_API_KEY, env.GEMINI_BIN_PATH, gemini.geminiBinaryPath) !== undefined,
      pi: pick(pi.apiKey, pi.baseUrl, env.OPENAI_API_KEY, env.OPENAI_BASE_URL, env.PI_BIN_PATH, pi.piBinaryPath) !== undefined,
      copilot: pick(copilot.apiKey, copilot.baseUrl, env.COPILOT_PROVIDER_API_KEY, env.COPILOT_PROVIDER_BASE_URL, env.OPENAI_API_KEY, env.OPENAI_BASE_URL, env.COPILOT_BIN_PATH, copilot.copilotBinaryPath) !== undefined,
      opencode: pick(opencode.apiKey, opencode.baseUrl, env.OPENAI_API_KEY, env.OPENAI_BASE_URL, env.OPENCODE_BIN_PATH, opencode.opencodeBinaryPath) !== undefined,
    },
  };
}

function rateBudgets(
  rpm: Readonly<Record<string, number>>,
  tpm: Readonly<Record<string, number>>,
): Record<string, { requestsPerMinute?: number; tokensPerMinute?: number }> {
  const out: Record<string, { requestsPerMinute?: number; tokensPerMinute?: number }> = {};
  for (const provider of new Set([...Object.keys(rpm), ...Object.keys(tpm)])) {
    out[provider] = {
      ...(rpm[provider] !== undefined ? { requestsPerMinute: rpm[provider] } : {}),
      ...(tpm[provider] !== undefined ? { tokensPerMinute: tpm[provider] } : {}),
    };
  }
  return out;
}
