import type { ProviderId } from '../shared/providers/registry.js';
import type { Effort } from './effort.js';

/**
 * What Cairn knows about models without any configuration: the built-in tier presets per
 * provider (REFERENCE §7.1, plus Cairn's own providers) and each provider's effort vocabulary.
 */

export const tierKeys = ['small', 'medium', 'large'] as const;
export type TierKey = (typeof tierKeys)[number];

/** A resolved preset: the provider that runs it, the model, and an effort when the preset sets one. */
export interface ModelPreset {
  provider: string;
  model: string;
  effort?: Effort | undefined;
}

const anthropicIds = { small: 'claude-haiku-4-5', medium: 'claude-sonnet-4-6', large: 'claude-opus-4-7' } as const;

/**
 * Built-in tier presets. `openai-compatible` has none: a local server's models are its own, so
 * its tiers must be configured.
 */
export const builtInTierDefaults: Readonly<Partial<Record<ProviderId, Readonly<Record<TierKey, ModelPreset>>>>> = {
  claude: {
    small: { provider: 'claude', model: 'haiku' },
    medium: { provider: 'claude', model: 'sonnet' },
    large: { provider: 'claude', model: 'opus' },
  },
  codex: {
    small: { provider: 'codex', model: 'gpt-5.5', effort: 'minimal' },
    medium: { provider: 'codex', model: 'gpt-5.5', effort: 'medium' },
    large: { provider: 'codex', model: 'gpt-5.5', effort: 'high' },
  },
  pi: {
    small: { provider: 'pi', model: `anthropic/${anthropicIds.small}` },
    medium: { provider: 'pi', model: `anthropic/${anthropicIds.medium}` },
    large: { provider: 'pi', model: `anthropic/${anthropicIds.large}` },
  },
  opencode: {
    small: { provider: 'opencode', model: `anthropic/${anthropicIds.small}` },
    medium: { provider: 'opencode', model: `anthropic/${anthropicIds.medium}` },
    large: { provider: 'opencode', model: `anthropic/${anthropicIds.large}` },
  },
  copilot: {
    small: { provider: 'copilot', model: 'gpt-5-mini' },
    medium: { provider: 'copilot', model: 'gpt-5' },
    large: { provider: 'copilot', model: 'claude-sonnet-4.5' },
  },
  anthropic: {
    small: { provider: 'anthropic', model: anthropicIds.small },
    medium: { provider: 'anthropic', model: anthropicIds.medium },
    large: { provider: 'anthropic', model: anthropicIds.large },
  },
  gemini: {
    small: { provider: 'gemini', model: 'gemini-2.5-flash-lite' },
    medium: { provider: 'gemini', model: 'gemini-2.5-flash' },
    large: { provider: 'gemini', model: 'gemini-2.5-pro' },
  },
};

/** An unset tier borrows from the next one in this order (REFERENCE §7.1). */
export const tierFallbackOrder: Readonly<Record<TierKey, readonly TierKey[]>> = {
  large: ['large', 'medium', 'small'],
  medium: ['medium', 'large', 'small'],
  small: ['small', 'medium', 'large'],
};

/** The effort ladder, lowest first; `ultra` and `persistent` are outside it and pass through. */
export const effortLadder = ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

/**
 * The efforts each provider accepts, a contiguous part of the ladder; a provider missing here
 * takes no effort at all (its nodes run without one).
 */
export const effortVocabulary: Readonly<Partial<Record<ProviderId, readonly Effort[]>>> = {
  claude: ['low', 'medium', 'high', 'xhigh', 'max'],
  anthropic: ['low', 'medium', 'high', 'xhigh', 'max'],
  codex: ['minimal', 'low', 'medium', 'high', 'xhigh'],
  copilot: ['low', 'medium', 'high', 'xhigh'],
  pi: ['minimal', 'low', 'medium', 'high', 'xhigh'],
  opencode: ['minimal', 'low', 'medium', 'high', 'xhigh'],
  gemini: ['minimal', 'low', 'medium', 'high'],
};

/**
 * The effort a provider gets for `effort`: within its vocabulary unchanged, past either end
 * the nearest end (`max` → `xhigh` on codex, `minimal` → `low` on claude), undefined for a
 * provider that takes none. Values outside the ladder pass through for the provider to judge.
 */
export function clampEffort(provider: string, effort: Effort | undefined): Effort | undefined {
  if (effort === undefined) return undefined;
  const vocabulary = effortVocabulary[provider as ProviderId];
  if (!vocabulary || vocabulary.length === 0) return undefined;
  const rank = effortLadder.indexOf(effort as (typeof effortLadder)[number]);
  if (rank < 0) return effort;
  const low = effortLadder.indexOf(vocabulary[0] as (typeof effortLadder)[number]);
  const high = effortLadder.indexOf(vocabulary[vocabulary.length - 1] as (typeof effortLadder)[number]);
  return effortLadder[Math.min(Math.max(rank, low), high)];
}
