import { z } from 'zod';
import { permissionLevelSchema } from './agent-options.js';

/**
 * The one list of AI providers Cairn knows: ids a workflow may name in `provider:`, how they
 * are shown, and what each can do. Adapters live in `src/worker/providers/`; a provider listed
 * here without an adapter fails its nodes with a configuration error, never a silent success.
 *
 * The five upstream agent ids and their capabilities follow the upstream system; `gemini` (the
 * Gemini CLI) is Cairn's own addition, and `anthropic` and `openai-compatible` are Cairn's
 * direct API providers.
 */

/** How a provider holds a node's `output_format`: enforced by the model's decoder, re-asked, or not at all. */
export const structuredOutputSupportSchema = z.enum(['enforced', 'best_effort', 'none']);
export type StructuredOutputSupport = z.infer<typeof structuredOutputSupportSchema>;

/**
 * Whether a provider declares that it reports a measurement. It seeds the contract's
 * availability reasons: `unsupported` → reason `unsupported`, `supported` but absent →
 * `not_reported`, `undeclared` → `unknown`.
 */
export const measurementSupportSchema = z.enum(['supported', 'unsupported', 'undeclared']);
export type MeasurementSupport = z.infer<typeof measurementSupportSchema>;

export const providerCapabilitiesSchema = z.strictObject({
  structuredOutput: structuredOutputSupportSchema,
  sessionResume: z.boolean(),
  sessionFork: z.boolean(),
  mcp: z.boolean(),
  hooks: z.boolean(),
  skills: z.boolean(),
  agents: z.boolean(),
  toolRestrictions: z.boolean(),
  effort: z.boolean(),
  thinking: z.boolean(),
  /** `maxBudgetUsd` is enforced by the provider itself. */
  costControl: z.boolean(),
  sandbox: z.boolean(),
  /** `systemPrompt` is added to the agent's instructions. */
  systemPrompt: z.boolean(),
  fallbackModel: z.boolean(),
  betas: z.boolean(),
  settingSources: z.boolean(),
  /** The workflow's `webSearchMode`. */
  webSearch: z.boolean(),
  /**
   * The permission levels (`read_only`, `workspace`, `full`) the adapter maps onto the provider's
   * own mechanism exactly. A node at another level is a validation warning, never a silent
   * downgrade or upgrade. API providers offer the model no tools, so every level holds there.
   */
  permissions: z.array(permissionLevelSchema),
  reports: z.strictObject({
    tokens: measurementSupportSchema,
    costUsd: measurementSupportSchema,
    stopReason: measurementSupportSchema,
    numTurns: measurementSupportSchema,
    resolvedModel: measurementSupportSchema,
  }),
});
export type ProviderCapabilities = z.infer<typeof providerCapabilitiesSchema>;

export const providerIds = ['claude', 'codex', 'opencode', 'pi', 'copilot', 'gemini', 'anthropic', 'openai-compatible'] as const;
export const providerIdSchema = z.enum(providerIds);
export type ProviderId = z.infer<typeof providerIdSchema>;

export const providerSchema = z.strictObject({
  id: providerIdSchema,
  displayName: z.string().min(1),
  /** `agent`: a coding agent driven through its CLI or SDK. `api`: a model API called over HTTP. */
  transport: z.enum(['agent', 'api']),
  /** The credential vendor id (upstream's legacy map: claude → anthropic, codex → openai, copilot → github-copilot). */
  vendor: z.string().min(1),
  /** `dynamic`: the model list is asked of the backend; `static`: known in advance. */
  catalog: z.enum(['static', 'dynamic']),
  builtIn: z.boolean(),
  capabilities: providerCapabilitiesSchema,
});
export type Provider = z.infer<typeof providerSchema>;

const none = {
  sessionResume: false,
  sessionFork: false,
  mcp: false,
  hooks: false,
  skills: false,
  agents: false,
  toolRestrictions: false,
  effort: false,
  thinking: false,
  costControl: false,
  sandbox: false,
  systemPrompt: false,
  fallbackModel: false,
  betas: false,
  settingSources: false,
  webSearch: false,
  permissions: [],
} as const;

const providers: readonly Provider[] = z.array(providerSchema).parse([
  {
    id: 'claude',
    displayName: 'Claude Code',
    transport: 'agent',
    vendor: 'anthropic',
    catalog: 'static',
    builtIn: true,
    capabilities: {
      structuredOutput: 'enforced',
      sessionResume: true,
      sessionFork: true,
      mcp: true,
      hooks: true,
      skills: true,
      agents: true,
      toolRestrictions: true,
      effort: true,
      thinking: true,
      costControl: true,
      // Claude Code's own sandbox (bubblewrap and socat on Linux): where it cannot start, the node
      // fails rather than running unconfined (worker/providers/claude/options.ts).
      sandbox: true,
      systemPrompt: true,
      fallbackModel: true,
      betas: true,
      settingSources: true,
      webSearch: false,
      // dontAsk, acceptEdits and bypassPermissions (as root: acceptEdits with every tool allowed);
      // worker/providers/claude/permissions.ts says what each lets through.
      permissions: ['read_only', 'workspace', 'full'],
      reports: { tokens: 'supported', costUsd: 'supported', stopReason: 'supported', numTurns: 'supported', resolvedModel: 'supported' },
    },
  },
  {
    id: 'codex',
    displayName: 'Codex',
    transport: 'agent',
    vendor: 'openai',
    catalog: 'static',
    builtIn: true,
    capabilities: {
      ...none,
      structuredOutput: 'enforced',
      sessionResume: true,
      // [mcp_servers] of its config, `model_reasoning_effort`, `developer_instructions`, `web_search`.
      mcp: true,
      effort: true,
      systemPrompt: true,
      webSearch: true,
      // Codex has no per-tool allow or deny list (only whole features), so allowed_tools and
      // denied_tools stay unsupported. Levels: its sandbox modes, with the approval policy `never`.
      permissions: ['read_only', 'workspace', 'full'],
      // Codex turn usage carries token counts only: no cost, stop reason or turn count. The model
      // is the one the server's stream names (the adapter's relay reads it).
      reports: { tokens: 'supported', costUsd: 'unsupported', stopReason: 'unsupported', numTurns: 'unsupported', resolvedModel: 'supported' },
    },
  },
  {
    id: 'opencode',
    displayName: 'OpenCode',
    transport: 'agent',
    vendor: 'opencode',
    catalog: 'dynamic',
    builtIn: true,
    capabilities: {
      ...none,
      // `opencode run` takes no schema: the answer is validated after the attempt.
      structuredOutput: 'best_effort',
      sessionResume: true,
      // The attempt's opencode.json: `mcp` servers, `agent` sub-agents (offered through OpenCode's
      // task tool), `permission` rules for the level and the tool options, `instructions` for the
      // system prompt, the model's `reasoningEffort` (Chat Completions `reasoning_effort`).
      mcp: true,
      agents: true,
      toolRestrictions: true,
      effort: true,
      systemPrompt: true,
      // A Chat Completions server has no standard field for a thinking budget; hooks and skills
      // are OpenCode plugins and skill folders, which Cairn does not write.
      permissions: ['read_only', 'workspace', 'full'],
      // The adapter reads the server's own usage, finish reason and model (through its relay);
      // OpenCode's cost comes from its price table, not the provider, and it counts no turns.
      reports: { tokens: 'supported', costUsd: 'unsupported', stopReason: 'supported', numTurns: 'unsupported', resolvedModel: 'supported' },
    },
  },
  {
    id: 'pi',
    displayName: 'Pi',
    transport: 'agent',
    vendor: 'pi',
    catalog: 'dynamic',
    builtIn: false,
    capabilities: {
      ...none,
      structuredOutput: 'best_effort',
      sessionResume: true,
      // `--tools` over its built-in read, bash, edit, write, grep, find, ls (worker/providers/pi/options.ts).
      toolRestrictions: true,
      // `--thinking <level>` on a model declared reasoning-capable: the request's reasoning_effort.
      effort: true,
      thinking: true,
      systemPrompt: true,
      // read_only: the read tools alone; workspace: Cairn's guard extension refuses a write or
      // edit outside the worktree and extraDirs (bash is not confined); full: no guard.
      permissions: ['read_only', 'workspace', 'full'],
      // The adapter reads the server's own usage, finish reason and model (through its relay);
      // Pi's cost comes from its model table, not the provider.
      reports: { tokens: 'supported', costUsd: 'unsupported', stopReason: 'supported', numTurns: 'unsupported', resolvedModel: 'supported' },
    },
  },
  {
    id: 'copilot',
    displayName: 'GitHub Copilot',
    transport: 'agent',
    vendor: 'github-copilot',
    catalog: 'static',
    builtIn: false,
    capabilities: {
      ...none,
      structuredOutput: 'best_effort',
      sessionResume: true,
      // `--additional-mcp-config`; tools `--available-tools` / `--excluded-tools`; `--reasoning-effort`;
      // systemPrompt: an instructions file in a folder named by COPILOT_CUSTOM_INSTRUCTIONS_DIRS.
      mcp: true,
      toolRestrictions: true,
      effort: true,
      systemPrompt: true,
      // read_only: `--deny-tool` write and shell; workspace: path verification over the worktree and
      // `--add-dir` extraDirs; full: `--allow-all-paths` (worker/providers/copilot/options.ts).
      permissions: ['read_only', 'workspace', 'full'],
      // The adapter reads the server's own usage, finish reason and model (through its relay).
      reports: { tokens: 'supported', costUsd: 'unsupported', stopReason: 'supported', numTurns: 'unsupported', resolvedModel: 'supported' },
    },
  },
  {
    id: 'gemini',
    displayName: 'Gemini CLI',
    transport: 'agent',
    vendor: 'google',
    catalog: 'static',
    builtIn: false,
    capabilities: {
      ...none,
      structuredOutput: 'best_effort',
      // ✚ `--resume=<id>`: a retry continues its failed attempt's session (the upstream says no).
      sessionResume: true,
      // `mcpServers` in the attempt's settings; allowed/denied tools are rules of Cairn's policy file.
      mcp: true,
      toolRestrictions: true,
      // The model's thinking budget (Gemini 2.5) or level (Gemini 3), through the CLI's model
      // config overrides. `thinking` is not taken: the CLI sets its own level on Gemini 3 models,
      // and the API refuses a budget beside it.
      effort: true,
      // Added to the CLI's instructions as its global context file (GEMINI_SYSTEM_MD would
      // replace them whole).
      systemPrompt: true,
      // The CLI's approval mode, workspace directories and an admin-tier policy (worker/providers/gemini/policy.ts).
      // At workspace, the file tools are confined to the working directory and the artifacts
      // folder; commands are not confined (the CLI's sandbox needs a container or bwrap).
      permissions: ['read_only', 'workspace', 'full'],
      // `--output-format stream-json` ends with a result whose stats carry token counts only.
      reports: { tokens: 'supported', costUsd: 'unsupported', stopReason: 'unsupported', numTurns: 'unsupported', resolvedModel: 'undeclared' },
    },
  },
  {
    id: 'anthropic',
    displayName: 'Anthropic API (Messages)',
    transport: 'api',
    vendor: 'anthropic',
    catalog: 'static',
    builtIn: true,
    capabilities: {
      ...none,
      structuredOutput: 'enforced',
      effort: true,
      thinking: true,
      systemPrompt: true,
      permissions: ['read_only', 'workspace', 'full'],
      // The Messages API reports usage and stop_reason but no price: cost would be an estimate.
      reports: { tokens: 'supported', costUsd: 'unsupported', stopReason: 'supported', numTurns: 'unsupported', resolvedModel: 'supported' },
    },
  },
  {
    id: 'openai-compatible',
    displayName: 'OpenAI-compatible API',
    transport: 'api',
    vendor: 'openai',
    catalog: 'dynamic',
    builtIn: true,
    capabilities: {
      ...none,
      structuredOutput: 'best_effort',
      systemPrompt: true,
      permissions: ['read_only', 'workspace', 'full'],
      // Local servers (Ollama, vLLM, llama.cpp) differ in whether they send usage in a stream.
      reports: { tokens: 'undeclared', costUsd: 'unsupported', stopReason: 'supported', numTurns: 'unsupported', resolvedModel: 'supported' },
    },
  },
]);

const providersById = new Map<string, Provider>(providers.map((p) => [p.id, p]));

/** Every registered provider, in display order. */
export function listProviders(): readonly Provider[] {
  return providers;
}

/** The provider with this id, or undefined. */
export function getProvider(id: string): Provider | undefined {
  return providersById.get(id);
}

/** True when `id` names a registered provider. */
export function isRegisteredProvider(id: string): id is ProviderId {
  return providersById.has(id);
}

/** The error text for a provider id that is not registered, listing the ones that are. */
export function describeUnknownProvider(id: string): string {
  return `Unknown provider '${id}'. Registered: ${providerIds.join(', ')}`;
}
