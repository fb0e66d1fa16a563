import type { ProviderId } from './registry.js';

/**
 * Providers that have an adapter in this version, without loading any SDK (the supervisor
 * reads it to refuse a node whose provider cannot run). `adapters.ts` holds the adapters.
 */
/** Providers whose adapter continues a failed attempt's session on the next attempt (`resumeSessionId`). */
export const providersResumingSessions: readonly ProviderId[] = ['claude', 'codex', 'opencode', 'pi', 'copilot', 'gemini'];

export const providersWithAdapter: readonly ProviderId[] = ['claude', 'codex', 'gemini', 'opencode', 'pi', 'copilot', 'anthropic', 'openai-compatible'];
