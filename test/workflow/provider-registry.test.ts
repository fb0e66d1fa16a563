import { describe, expect, it } from 'vitest';
import {
  describeUnknownProvider,
  getProvider,
  isRegisteredProvider,
  listProviders,
  providerIds,
} from '../../src/shared/providers/registry.js';

describe('provider registry', () => {
  it('registers the upstream agents and the two API providers, once each', () => {
    expect(listProviders().map((p) => p.id)).toEqual(['claude', 'codex', 'opencode', 'pi', 'copilot', 'gemini', 'anthropic', 'openai-compatible']);
    expect(new Set(providerIds).size).toBe(providerIds.length);
  });

  it('answers whether an id is registered', () => {
    expect(isRegisteredProvider('claude')).toBe(true);
    expect(isRegisteredProvider('openai-compatible')).toBe(true);
    expect(isRegisteredProvider('gpt')).toBe(false);
    expect(isRegisteredProvider('Claude')).toBe(false);
  });

  it('keeps the measurement facts the execution record starts from', () => {
    expect(getProvider('claude')?.capabilities.reports.costUsd).toBe('supported');
    // Codex reports tokens only: its cost is `unsupported`, never an estimate or a zero.
    expect(getProvider('codex')?.capabilities.reports).toMatchObject({ tokens: 'supported', costUsd: 'unsupported' });
    expect(getProvider('pi')?.capabilities.structuredOutput).toBe('best_effort');
    // The Gemini CLI is Cairn's addition: registered, a community provider, tokens only.
    expect(getProvider('gemini')).toMatchObject({ builtIn: false, vendor: 'google', capabilities: { reports: { tokens: 'supported', costUsd: 'unsupported' } } });
  });

  it('maps legacy assistant ids to credential vendors', () => {
    expect(['claude', 'codex', 'copilot'].map((id) => getProvider(id)?.vendor)).toEqual(['anthropic', 'openai', 'github-copilot']);
  });

  it('names the registered ids when refusing one', () => {
    expect(describeUnknownProvider('gpt')).toBe(
      "Unknown provider 'gpt'. Registered: claude, codex, opencode, pi, copilot, gemini, anthropic, openai-compatible",
    );
  });
});
