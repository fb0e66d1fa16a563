import type { ProviderId } from '../../shared/providers/registry.js';

/**
 * Providers that have an adapter in this version, without loading any SDK (the supervisor
 * reads it to refuse a node whose provider cannot run). `adapters.ts` holds the adapters.
 */
export const providersWithAdapter: readonly ProviderId[] = ['claude', 'codex', 'gemini', 'opencode', 'pi', 'copilot', 'anthropic', 'openai-compatible'];
