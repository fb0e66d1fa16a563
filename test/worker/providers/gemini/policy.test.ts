import { describe, expect, it } from 'vitest';
import { escapeImports } from '../../../../src/worker/providers/gemini/home.js';
import { invalidToolNames, planGeminiPermissions } from '../../../../src/worker/providers/gemini/policy.js';
import { geminiSettings } from '../../../../src/worker/providers/gemini/settings.js';
import { GeminiStreamState } from '../../../../src/worker/providers/gemini/stream.js';

/**
 * The pure parts of the Gemini adapter where the real-CLI tests cannot look: the thinking
 * setting of a Gemini 3 model (the local server plays a 2.5 model), the edges of the policy
 * and context-file text, and refusals Cairn's levels never provoke. gemini-options.test.ts and gemini-permissions.test.ts prove the rest on
 * the CLI.
 */

describe('gemini settings and policy', () => {
  it('gives a Gemini 3 model a thinking level and a Gemini 2.5 model a budget, never both', () => {
    const overrides = (model: string | undefined) => (geminiSettings({ effort: 'minimal', ...(model ? { model } : {}) }).modelConfigs as any).customOverrides;
    expect(overrides('gemini-3-pro-preview')).toEqual([
      { match: { model: 'chat-base-2.5' }, modelConfig: { generateContentConfig: { thinkingConfig: { thinkingBudget: 512 } } } },
      { match: { model: 'chat-base-3' }, modelConfig: { generateContentConfig: { thinkingConfig: { thinkingLevel: 'LOW' } } } },
      { match: { model: 'gemini-3-pro-preview' }, modelConfig: { generateContentConfig: { thinkingConfig: { thinkingLevel: 'LOW' } } } },
    ]);
    expect(overrides('my-tuned-model').at(-1)).toEqual({ match: { model: 'my-tuned-model' }, modelConfig: { generateContentConfig: { thinkingConfig: { thinkingBudget: 512 } } } });
    // `auto` is routed to either family: only the family overrides apply.
    expect(overrides('auto')).toHaveLength(2);
    expect(overrides(undefined)).toHaveLength(2);
    expect(geminiSettings({ effort: 'high', model: 'gemini-3-flash' }).modelConfigs).toMatchObject({ customOverrides: expect.arrayContaining([{ match: { model: 'gemini-3-flash' }, modelConfig: { generateContentConfig: { thinkingConfig: { thinkingLevel: 'HIGH' } } } }]) });
    expect(geminiSettings()).not.toHaveProperty('modelConfigs');
  });

  it('names each tool name the CLI could not take, and quotes the ones it can', () => {
    expect(invalidToolNames({ allowedTools: ['read_file', 'mcp_docs_search', 'mcp_docs_*'], deniedTools: ['*'] })).toEqual([]);
    const problems = invalidToolNames({ allowedTools: ['read file'], deniedTools: ['x"\n[[rule]]', 'mcp__a__b', ''] });
    expect(problems).toHaveLength(4);
    expect(problems[0]).toMatch(/^allowed_tools entry "read file" is not a Gemini CLI tool name/);
    expect(problems[1]).toMatch(/^denied_tools entry "x\\"\\n\[\[rule\]\]"/);
    const { policy } = planGeminiPermissions({ permissions: 'workspace', extraDirs: [], deniedTools: ['mcp_docs_*'] }, []);
    expect(policy).toContain('toolName = "mcp_docs_*"\ndecision = "deny"\npriority = 900');
  });

  it('marks a refusal as refused and a tool that ran and failed as failed', () => {
    const result = (error: unknown) => new GeminiStreamState().read(JSON.stringify({ type: 'tool_result', tool_id: 't', status: 'error', error }))[0];
    const confirmation = 'Tool execution for "Shell" requires user confirmation, which is not supported in non-interactive mode.';
    expect(result({ type: 'unhandled_exception', message: confirmation })).toMatchObject({ isError: true, refused: true });
    expect(result({ type: 'policy_violation', message: 'Tool execution denied by policy.' })).toMatchObject({ refused: true });
    expect(result({ type: 'invalid_tool_params', message: 'Path not in workspace: Attempted path "/x"' })).toMatchObject({ refused: true });
    for (const error of [{ type: 'invalid_tool_params', message: "params must have required property 'content'" }, { type: 'file_not_found', message: 'no such file' }, { type: 'execution_failed', message: 'Path not in workspace' }]) {
      expect(result(error)).toEqual({ type: 'tool_result', id: 't', output: JSON.stringify(error), isError: true });
    }
  });

  it('keeps an @ at the start of a word in the systemPrompt from being read as a file import', () => {
    expect(escapeImports('@a ping @b, mail me@host\n@./x.md')).toBe('\u200b@a ping \u200b@b, mail me@host\n\u200b@./x.md');
  });
});
