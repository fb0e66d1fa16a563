import { describe, expect, it } from 'vitest';
import { resolveModelBinding, type BindingInputs } from '../../src/models/model-binding.js';
import { layerOrder, type ModelLayer, type ModelLayers } from '../../src/models/model-layers.js';
import { clampEffort } from '../../src/models/model-presets.js';

/**
 * Precedence of the model layers: for every combination of the four scopes (install,
 * repository, user, run) that set a key, the highest one present decides; none: built-in.
 */

type Scope = (typeof layerOrder)[number];
const combinations: Scope[][] = Array.from({ length: 16 }, (_, mask) => layerOrder.filter((_, i) => mask & (1 << i)));
const highest = (scopes: Scope[]) => scopes[scopes.length - 1];
const name = (scopes: Scope[]) => (scopes.length > 0 ? scopes.join(' + ') : 'no layer');

function layersWith(scopes: Scope[], make: (scope: Scope) => ModelLayer): ModelLayers {
  return Object.fromEntries(scopes.map((scope) => [scope, make(scope)]));
}

function bind(inputs: Partial<BindingInputs> & { layers: ModelLayers }) {
  return resolveModelBinding({ node: {}, workflow: {}, ...inputs });
}

describe('layer precedence: run > user > repository > install > built-in', () => {
  it.each(combinations.map((c) => [name(c), c] as const))('tiers.large with %s', (_, scopes) => {
    const layers = layersWith(scopes, (scope) => ({ tiers: { large: { provider: 'claude', model: `${scope}-large` } } }));
    const top = highest(scopes);
    expect(bind({ node: { model: 'large' }, layers })).toMatchObject({
      ok: true, provider: 'claude', model: top ? `${top}-large` : 'opus', preset: 'large',
    });
  });

  it.each(combinations.map((c) => [name(c), c] as const))('an @alias with %s', (_, scopes) => {
    const layers = layersWith(scopes, (scope) => ({ aliases: { '@fast': `claude/${scope}-fast` } }));
    const top = highest(scopes);
    const binding = bind({ node: { model: '@fast' }, layers });
    if (top) expect(binding).toMatchObject({ ok: true, provider: 'claude', model: `${top}-fast`, preset: '@fast' });
    else expect(binding).toEqual({ ok: false, error: "Unknown alias '@fast'. Defined aliases: none" });
  });

  const assistants = ['codex', 'copilot', 'pi', 'opencode'] as const;
  it.each(combinations.map((c) => [name(c), c] as const))('the default assistant with %s', (_, scopes) => {
    const layers = layersWith(scopes, (scope) => ({ defaultAssistant: assistants[layerOrder.indexOf(scope)] }));
    const top = highest(scopes);
    expect(bind({ layers })).toMatchObject({ ok: true, provider: top ? assistants[layerOrder.indexOf(top)] : 'claude' });
  });

  it.each(combinations.map((c) => [name(c), c] as const))('assistants.codex.model with %s', (_, scopes) => {
    const layers = layersWith(scopes, (scope) => ({ assistants: { codex: { model: `${scope}-model` } } }));
    const top = highest(scopes);
    expect(bind({ node: { provider: 'codex' }, layers })).toMatchObject({
      ok: true, provider: 'codex', model: top ? `${top}-model` : undefined, modelSource: top ? 'config' : 'provider_default',
    });
  });

  it('takes each key from the highest layer that sets it, not the whole map', () => {
    const layers: ModelLayers = {
      install: { tiers: { small: 'claude/install-small', large: 'claude/install-large' } },
      user: { tiers: { large: { provider: 'codex', model: 'user-large', effort: 'high' } } },
    };
    expect(bind({ node: { model: 'small' }, layers })).toMatchObject({ provider: 'claude', model: 'install-small' });
    expect(bind({ node: { model: 'large' }, layers })).toMatchObject({ provider: 'codex', model: 'user-large', effort: 'high' });
    // Unset at every layer: the built-in preset of the provider the node runs on.
    expect(bind({ node: { model: 'medium' }, layers })).toMatchObject({ provider: 'claude', model: 'sonnet' });
  });

  it("uses the user's default provider and pinned model below the run's layer", () => {
    const layers: ModelLayers = {
      install: { defaultAssistant: 'claude', assistants: { codex: { model: 'install-codex' } } },
      user: { defaultAssistant: 'codex', defaultModel: 'gpt-5.5-pinned' },
    };
    expect(bind({ layers })).toMatchObject({ provider: 'codex', model: 'gpt-5.5-pinned', modelSource: 'config' });
    expect(bind({ layers: { ...layers, run: { defaultAssistant: 'claude' } } })).toMatchObject({ provider: 'claude', model: undefined });
  });
});

describe('model specs', () => {
  const layers: ModelLayers = {
    install: {
      tiers: { medium: '@balanced' },
      aliases: { '@balanced': 'codex/gpt-5.5', '@loop': '@loop2', '@loop2': '@loop', '@mini': 'small' },
    },
  };
  it.each([
    ['assistant/model', { model: 'codex/gpt-5' }, { provider: 'codex', model: 'gpt-5' }],
    ['vendor/model picks the vendor’s agent', { model: 'github-copilot/gpt-5' }, { provider: 'copilot', model: 'gpt-5' }],
    ['vendor/model stays a model id on pi', { provider: 'pi', model: 'anthropic/claude-sonnet-4-6' }, { provider: 'pi', model: 'anthropic/claude-sonnet-4-6' }],
    ['an unqualified model under the node’s provider', { provider: 'copilot', model: 'gpt-5-mini' }, { provider: 'copilot', model: 'gpt-5-mini' }],
    ['an unknown prefix is part of the model id', { provider: 'openai-compatible', model: 'meta-llama/Llama-3' }, { provider: 'openai-compatible', model: 'meta-llama/Llama-3' }],
    ['a tier naming an alias', { model: 'medium' }, { provider: 'codex', model: 'gpt-5.5', preset: 'medium' }],
    ['an alias naming a tier', { provider: 'codex', model: '@mini' }, { provider: 'codex', model: 'gpt-5.5', effort: 'minimal' }],
  ] as const)('%s', (_, node, expected) => {
    expect(bind({ node, layers })).toMatchObject({ ok: true, ...expected });
  });

  it('lets the preset’s provider win over the node’s, with a warning', () => {
    const binding = bind({ node: { provider: 'claude', model: '@balanced' }, layers });
    expect(binding).toMatchObject({ ok: true, provider: 'codex', model: 'gpt-5.5' });
    expect(binding.ok && binding.warnings[0]).toContain("provider 'claude' is overridden by '@balanced'");
  });

  it('refuses a loop of presets, an unknown alias and a tier without a default, naming what is defined', () => {
    expect(bind({ node: { model: '@loop' }, layers })).toEqual({ ok: false, error: "Model preset '@loop' refers to itself (@loop → @loop2 → @loop)" });
    expect(bind({ node: { model: '@nope' }, layers })).toEqual({
      ok: false, error: "Unknown alias '@nope'. Defined aliases: @balanced, @loop, @loop2, @mini",
    });
    const bare = bind({ node: { provider: 'openai-compatible', model: 'large' }, layers: { install: { tiers: { medium: 'gpt-oss' } } } });
    // An unset tier borrows from the next one: large → medium.
    expect(bare).toMatchObject({ ok: true, provider: 'openai-compatible', model: 'gpt-oss' });
    expect(bind({ node: { provider: 'openai-compatible', model: 'small' }, layers: {} })).toEqual({
      ok: false,
      error: "Tier 'small' has no configured preset and no built-in default for provider 'openai-compatible'. Defined tiers: none; set tiers.small in config or name a model",
    });
    expect(bind({ node: { model: 'large' }, layers: { install: { tiers: { large: { provider: 'nope', model: 'm' } } } } })).toMatchObject({
      ok: false, error: expect.stringContaining("Unknown provider 'nope'"),
    });
  });
});

describe('effort', () => {
  it.each([
    ['codex', 'max', 'xhigh'],
    ['copilot', 'max', 'xhigh'],
    ['claude', 'minimal', 'low'],
    ['copilot', 'minimal', 'low'],
    ['claude', 'high', 'high'],
    ['codex', 'minimal', 'minimal'],
    ['opencode', 'max', 'xhigh'],
    ['gemini', 'max', 'high'],
    ['openai-compatible', 'high', undefined],
  ] as const)('%s clamps %s to %s', (provider, effort, expected) => {
    expect(clampEffort(provider, effort)).toBe(expected);
  });

  it('takes the node’s effort over the preset’s, clamped to the provider that runs', () => {
    expect(bind({ node: { provider: 'codex', model: 'small' }, layers: {} })).toMatchObject({ model: 'gpt-5.5', effort: 'minimal' });
    expect(bind({ node: { provider: 'codex', model: 'small', effort: 'max' }, layers: {} })).toMatchObject({ effort: 'xhigh' });
    expect(bind({ node: { model: 'small', effort: 'minimal' }, layers: {} })).toMatchObject({ provider: 'claude', model: 'haiku', effort: 'low' });
  });
});
