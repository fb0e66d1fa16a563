import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentOptions } from '../../../../src/shared/providers/agent-options.js';
import { claudeOptionArgs } from '../../../../src/worker/providers/claude/options.js';
import { ClaudeStreamState } from '../../../../src/worker/providers/claude/stream.js';
import type { ProviderRequest } from '../../../../src/worker/providers/provider-adapter.js';

/**
 * The mappings of claude-options.ts the CLI sessions (claude-options.test.ts) cannot tell apart
 * by what reaches the server: the thinking words, the efforts the flag takes, the hook files, and
 * how a call a hook blocked is read back.
 */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-claude-args-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function request(options: Partial<AgentOptions>, extra: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    provider: 'claude', prompt: 'p', cwd: dir, connection: {}, sessionKey: 'k', scratchDir: dir,
    options: { permissions: 'workspace', extraDirs: [], ...options },
    ...extra,
  };
}

async function argsOf(options: Partial<AgentOptions>, extra: Partial<ProviderRequest> = {}) {
  const built = await claudeOptionArgs(request(options, extra), {});
  if (!built.ok) throw new Error(built.error);
  return built;
}

describe('claude option arguments', () => {
  it('maps each thinking word, and a budget, onto the CLI’s thinking flags', async () => {
    expect((await argsOf({ thinking: 'adaptive' })).args).toEqual(['--thinking=adaptive']);
    expect((await argsOf({ thinking: 'enabled' })).args).toEqual(['--thinking=adaptive']);
    expect((await argsOf({ thinking: { type: 'adaptive' } })).args).toEqual(['--thinking=adaptive']);
    expect((await argsOf({ thinking: { type: 'disabled' } })).args).toEqual(['--thinking=disabled']);
    expect((await argsOf({ thinking: { type: 'enabled', budgetTokens: 4096 } })).args).toEqual(['--max-thinking-tokens=4096']);
  });

  it('passes --effort only for the values every CLI version takes; the variable carries every value', async () => {
    for (const effort of ['low', 'medium', 'high', 'max'] as const) {
      expect(await argsOf({}, { effort })).toMatchObject({ args: [`--effort=${effort}`], env: { CLAUDE_CODE_EFFORT_LEVEL: effort } });
    }
    expect(await argsOf({}, { effort: 'xhigh' })).toMatchObject({ args: [], env: { CLAUDE_CODE_EFFORT_LEVEL: 'xhigh' } });
  });

  it('writes a response hook’s JSON to a file whose command prints it, even from a folder whose name holds a quote', async () => {
    const scratch = join(dir, "it's $(here)");
    mkdirSync(scratch);
    const response = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: "no '$(touch pwned)'" } };
    const built = await argsOf(
      { hooks: { PreToolUse: [{ matcher: 'Bash', response }], Stop: [{ command: 'echo stopped', timeout: 5 }] }, sandbox: { network: { allowedDomains: ['example.com'] } } },
      { scratchDir: scratch },
    );
    const settingsFile = built.args.find((a) => a.startsWith('--settings='))!.slice('--settings='.length);
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
    expect(settings.sandbox).toEqual({ enabled: true, failIfUnavailable: true, network: { allowedDomains: ['example.com'] } });
    expect(settings.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: 'echo stopped', timeout: 5 }] }]);
    const [pre] = settings.hooks.PreToolUse;
    expect(pre.matcher).toBe('Bash');
    const printed = execFileSync('/bin/sh', ['-c', pre.hooks[0].command], { cwd: dir, encoding: 'utf8' });
    expect(JSON.parse(printed)).toEqual(response);
    expect(existsSync(join(dir, 'pwned')) || existsSync(join(scratch, 'pwned'))).toBe(false);
    // The deny's reason is how the CLI answers the blocked call: it is kept to tell a refusal.
    expect(built.hookDenials).toEqual(["no '$(touch pwned)'"]);
  });

  it('reads a call blocked by a PreToolUse hook as refused, and a tool that ran and failed as failed', () => {
    const state = new ClaudeStreamState(['PR creation node: no writes']);
    const result = (id: string, content: string) =>
      state.read(JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: true }] } })).chunks[0];
    // 2.1.100 answers with the node's own reason; 2.1.332 names the hook, whatever blocked the call.
    expect(result('a', 'PR creation node: no writes')).toMatchObject({ isError: true, refused: true });
    expect(result('b', 'PreToolUse:Write hook error: blocked by a command hook')).toMatchObject({ isError: true, refused: true });
    expect(result('c', 'Permission to use Bash has been denied because Claude Code is running in don\'t ask mode')).toMatchObject({ refused: true });
    const failed = result('d', 'Exit code 1\nPR creation node: no writes');
    expect(failed).toMatchObject({ isError: true });
    expect(failed).not.toHaveProperty('refused');
  });
});
