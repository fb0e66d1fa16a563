import { describe, expect, it } from 'vitest';
import { listProviders } from '../../src/shared/providers/registry.js';
import { honoursOption, providerOptionKeys } from '../../src/shared/providers/option-support.js';
import { validateWorkflowDefinition } from '../../src/workflow/checks/validate-definition.js';

/**
 * An option the language accepts either reaches the node's provider or validation names it:
 * the warnings come from the capabilities the registry declares (which the adapter tests drive).
 */

function warningsOf(definition: Record<string, unknown>, defaultProvider?: string): string[] {
  const result = validateWorkflowDefinition({ name: 'w', description: 'd', ...definition }, defaultProvider ? { defaultProvider } : {});
  if (!result.valid) throw new Error(result.errors.join('\n'));
  return result.warnings;
}

describe('provider options validation', () => {
  it('says nothing when the provider takes every option the node sets', () => {
    expect(
      warningsOf({
        nodes: [
          { id: 'a', prompt: 'x', provider: 'claude', allowed_tools: ['Read'], denied_tools: ['Bash'], effort: 'high', maxBudgetUsd: 1, systemPrompt: 'be brief', permissions: 'read_only' },
        ],
      }),
    ).toEqual([]);
  });

  it('names each option the node’s provider cannot honour, with the node, the option and the provider', () => {
    const providers = listProviders().filter((p) => p.transport === 'agent');
    for (const provider of providers) {
      for (const option of providerOptionKeys) {
        if (honoursOption(provider.id, option)) continue;
        const value = option === 'allowed_tools' || option === 'denied_tools' || option === 'skills' || option === 'betas' || option === 'settingSources'
          ? ['x']
          : option === 'maxBudgetUsd' ? 1
            : option === 'mcp' || option === 'systemPrompt' || option === 'fallbackModel' ? 'x'
              : option === 'effort' ? 'high'
                : option === 'thinking' ? 'adaptive'
                  : option === 'webSearchMode' ? undefined
                    : option === 'agents' ? { helper: { description: 'd', prompt: 'p' } }
                      : option === 'hooks' ? { PreToolUse: [{ response: {} }] }
                        : option === 'output_format' ? { type: 'object' }
                          : {};
        if (value === undefined) continue;
        const warnings = warningsOf({ nodes: [{ id: 'n', prompt: 'x', provider: provider.id, permissions: 'full', [option]: value }] });
        expect(warnings, `${provider.id} / ${option}`).toContainEqual(expect.stringMatching(new RegExp(`^Node 'n': provider '${provider.id}' cannot honour '${option}'`)));
      }
    }
  });

  it('takes the workflow’s top-level defaults into account, and the default provider when nodes name none', () => {
    const warnings = warningsOf({ webSearchMode: 'live', nodes: [{ id: 'a', prompt: 'x' }, { id: 'b', prompt: 'y', provider: 'codex' }] });
    expect(warnings).toEqual([expect.stringMatching(/^Node 'a': provider 'claude' cannot honour 'webSearchMode'/)]);
    expect(warningsOf({ nodes: [{ id: 'a', prompt: 'x', fallbackModel: 'm' }] }, 'gemini')).toContainEqual(
      expect.stringMatching(/^Node 'a': provider 'gemini' cannot honour 'fallbackModel'/),
    );
  });

  it('names a permission level the provider cannot enforce, at the node or inherited from the workflow', () => {
    for (const provider of listProviders()) {
      for (const level of ['read_only', 'workspace', 'full'] as const) {
        const warnings = warningsOf({ permissions: level, nodes: [{ id: 'a', prompt: 'x', provider: provider.id }] });
        const named = warnings.some((w) => w.startsWith(`Node 'a': provider '${provider.id}' cannot enforce permissions '${level}'`));
        expect(named, `${provider.id} at ${level}`).toBe(!provider.capabilities.permissions.includes(level));
      }
    }
  });

  it('checks loop bodies, loop_group bodies and a gate’s prompt rework', () => {
    const warnings = warningsOf({
      provider: 'gemini',
      nodes: [
        { id: 'l', loop: { prompt: 'go', until: 'DONE', max_iterations: 2 }, fallbackModel: 'm' },
        { id: 'g', loop_group: { max_iterations: 2, until_bash: 'true', nodes: [{ id: 'in', prompt: 'p', fallbackModel: 'm' }] } },
      ],
    });
    expect(warnings).toEqual([
      expect.stringMatching(/^Node 'l': provider 'gemini' cannot honour 'fallbackModel'/),
      expect.stringMatching(/^Node 'g' → loop_group node 'in': provider 'gemini' cannot honour 'fallbackModel'/),
    ]);
  });

  it('judges a loop_group body node by the provider it runs on: its own, else the group’s, else the workflow’s', () => {
    const warnings = warningsOf({
      provider: 'claude',
      nodes: [
        {
          id: 'g',
          provider: 'gemini',
          loop_group: {
            max_iterations: 2,
            until_bash: 'true',
            nodes: [{ id: 'in', prompt: 'p', fallbackModel: 'm' }, { id: 'own', prompt: 'p', provider: 'claude', fallbackModel: 'm' }],
          },
        },
      ],
    });
    expect(warnings).toEqual([expect.stringMatching(/^Node 'g' → loop_group node 'in': provider 'gemini' cannot honour 'fallbackModel'/)]);
  });

  it('refuses a permission level that does not exist, naming the three', () => {
    const result = validateWorkflowDefinition({ name: 'w', description: 'd', nodes: [{ id: 'a', prompt: 'x', permissions: 'root' }] });
    expect(result.valid).toBe(false);
    expect(!result.valid && result.errors.join('\n')).toMatch(/'permissions' must be one of read_only, workspace, full, not 'root'/);
  });
});
