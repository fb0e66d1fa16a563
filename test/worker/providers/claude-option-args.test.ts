import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentOptions } from '../../../src/shared/providers/agent-options.js';
import { claudeOptionArgs } from '../../../src/worker/providers/claude-options.js';
import type { ProviderRequest } from '../../../src/worker/providers/provider-adapter.js';

/**
 * The mappings of claude-options.ts the CLI sessions (claude-options.test.ts) cannot tell apart
 * by what reaches the server: the thinking words, the efforts the flag takes, the hook files.
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
  });
});
