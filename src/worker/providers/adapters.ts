import type { ProviderId } from '../../shared/providers/registry.js';
import { anthropicAdapter } from './anthropic/adapter.js';
import { claudeAdapter } from './claude/adapter.js';
import { copilotAdapter } from './copilot/adapter.js';
import { codexAdapter } from './codex/adapter.js';
import { geminiAdapter } from './gemini/adapter.js';
import { openAiCompatibleAdapter } from './openai-compatible/adapter.js';
import { opencodeAdapter } from './opencode/adapter.js';
import { piAdapter } from './pi/adapter.js';
import type { ProviderAdapter } from './provider-adapter.js';

/**
 * The adapters this version has: one for every registered provider. A provider registered
 * without one would fail its nodes with a configuration error before anything is called.
 */
const adapters: Partial<Record<ProviderId, ProviderAdapter>> = {
  claude: claudeAdapter,
  codex: codexAdapter,
  gemini: geminiAdapter,
  opencode: opencodeAdapter,
  pi: piAdapter,
  copilot: copilotAdapter,
  anthropic: anthropicAdapter,
  'openai-compatible': openAiCompatibleAdapter,
};

export function adapterFor(id: ProviderId): ProviderAdapter | undefined {
  return adapters[id];
}
