import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentOptions, HookMatcher } from '../../../shared/providers/agent-options.js';
import { loadMcpServers } from '../common/mcp-config.js';
import type { ProviderRequest } from '../provider-adapter.js';

/**
 * A node's options as Claude Code's command line, environment and the files of the attempt they
 * name (its MCP servers, its settings). Every value goes in as `--flag=value`, one argument, so
 * a value starting with `-` is never read as a flag and a list never swallows the next flag;
 * nothing is ever shell text. What each maps onto (checked on Claude Code 2.1.100 and 2.1.332):
 *
 * - `allowedTools` → `--tools` (the offered set; `[]` offers none), `deniedTools` →
 *   `--disallowedTools` (a bare name takes the tool away), `mcp` → `--mcp-config` with
 *   `--strict-mcp-config` (only the node's servers), `agents` → `--agents`, `systemPrompt` →
 *   `--append-system-prompt`, `maxBudgetUsd` → `--max-budget-usd`, `fallbackModel` →
 *   `--fallback-model`, `betas` → `--betas` (the CLI sends only the betas it allows to API-key
 *   users), `settingSources` → `--setting-sources`.
 * - `skills` → the skills are named in the appended system prompt, to be loaded with the CLI's
 *   `Skill` tool, which finds them in `.claude/skills/` of the project or the user. (A main-thread
 *   `--agent` whose definition lists skills does not preload them, and it replaces the CLI's own
 *   system prompt.) `skills` keeps `Skill`, and `agents` keeps `Agent`, in a restricted tool set.
 * - `hooks` and `sandbox` → a settings file of the attempt (`--settings`). A `response` hook
 *   becomes a command that prints its JSON from a file of the attempt; a `command` hook runs as
 *   written. A sandbox that cannot start fails the attempt (`failIfUnavailable`) unless the node
 *   says otherwise: a node that asks for one never runs without it.
 * - `effort` → `--effort` for the values every version takes (low, medium, high, max) and, for
 *   each value, `CLAUDE_CODE_EFFORT_LEVEL`, which the CLI reads over its flag (so a value left in
 *   the server's environment cannot override the node's) and which carries `xhigh` to the CLIs
 *   that know it (2.1.100 does not, and keeps its default).
 * - `thinking` → the CLI's `--thinking` (adaptive, disabled) or `--max-thinking-tokens` for a
 *   budget: the flags its agent SDK passes.
 */

/**
 * What the node's options add to the CLI's start, or why the attempt cannot start. `privateFiles`
 * hold values of the environment (the MCP servers' expanded `env` and `headers`, often tokens):
 * readable by the server's user only, and removed once the CLI has ended.
 */
export type ClaudeOptionArgs =
  | { ok: true; args: string[]; env: Record<string, string>; mcpServers: string[]; privateFiles: string[]; hookDenials: string[] }
  | { ok: false; error: string };

/** The efforts `--effort` takes in every Claude Code version Cairn is tested with. */
const flagEfforts = new Set(['low', 'medium', 'high', 'max']);

/** The node's options as CLI arguments and variables, writing the files they name into the attempt's scratch folder. */
export async function claudeOptionArgs(request: ProviderRequest, cliEnv: Readonly<Record<string, string | undefined>>): Promise<ClaudeOptionArgs> {
  const o = request.options;
  const args: string[] = [];
  const env: Record<string, string> = {};
  if (o.allowedTools !== undefined) {
    const tools = new Set(o.allowedTools);
    if (o.skills !== undefined && o.skills.length > 0) tools.add('Skill');
    if (o.agents !== undefined && Object.keys(o.agents).length > 0) tools.add('Agent');
    args.push(`--tools=${[...tools].join(',')}`);
  }
  for (const tool of o.deniedTools ?? []) args.push(`--disallowedTools=${tool}`);
  let mcpServers: string[] = [];
  const privateFiles: string[] = [];
  if (o.mcp !== undefined) {
    const loaded = await loadMcpServers(o.mcp, request.cwd, cliEnv);
    if (!loaded.ok) return loaded;
    mcpServers = Object.keys(loaded.servers);
    const file = join(request.scratchDir, 'mcp.json');
    await writeFile(file, JSON.stringify({ mcpServers: loaded.servers }), { mode: 0o600 });
    privateFiles.push(file);
    args.push(`--mcp-config=${file}`, '--strict-mcp-config');
  }
  const settings = await settingsOf(o, request.scratchDir);
  if (settings !== undefined) args.push(`--settings=${settings}`);
  if (o.agents !== undefined) args.push(`--agents=${JSON.stringify(o.agents)}`);
  const appended = [request.systemPrompt, skillsText(o.skills)].filter((t): t is string => t !== undefined);
  if (appended.length > 0) args.push(`--append-system-prompt=${appended.join('\n\n')}`);
  if (request.effort !== undefined) {
    if (flagEfforts.has(request.effort)) args.push(`--effort=${request.effort}`);
    env.CLAUDE_CODE_EFFORT_LEVEL = request.effort;
  }
  args.push(...thinkingArgs(o.thinking));
  if (o.maxBudgetUsd !== undefined) args.push(`--max-budget-usd=${o.maxBudgetUsd}`);
  if (o.fallbackModel !== undefined) args.push(`--fallback-model=${o.fallbackModel}`);
  for (const beta of o.betas ?? []) args.push(`--betas=${beta}`);
  if (o.settingSources !== undefined) args.push(`--setting-sources=${o.settingSources.join(',')}`);
  return { ok: true, args, env, mcpServers, privateFiles, hookDenials: hookDenialReasons(o.hooks) };
}

/**
 * The reasons the node's `response` hooks give when they deny a call (`PreToolUse` with
 * `permissionDecision: deny`): Claude Code answers the call with that text alone (2.1.100), so
 * it is how a refusal by the node's own hooks is told from a tool that ran and failed.
 */
function hookDenialReasons(hooks: AgentOptions['hooks']): string[] {
  return (hooks?.PreToolUse ?? []).flatMap((m) => {
    const out = (m.response as { hookSpecificOutput?: { permissionDecision?: unknown; permissionDecisionReason?: unknown } } | undefined)?.hookSpecificOutput;
    return out?.permissionDecision === 'deny' && typeof out.permissionDecisionReason === 'string' && out.permissionDecisionReason.trim() !== ''
      ? [out.permissionDecisionReason.trim()]
      : [];
  });
}

function skillsText(skills: readonly string[] | undefined): string | undefined {
  if (skills === undefined || skills.length === 0) return undefined;
  return `This task uses these skills; load each with the Skill tool before you start: ${skills.join(', ')}.`;
}

/** `thinking` as the node wrote it (`adaptive`, `enabled`, `disabled`, or `{ type, budgetTokens }`). */
function thinkingArgs(thinking: unknown): string[] {
  if (thinking === undefined) return [];
  const type = typeof thinking === 'string' ? thinking : (thinking as { type?: unknown }).type;
  const budget = typeof thinking === 'object' && thinking !== null ? (thinking as { budgetTokens?: unknown }).budgetTokens : undefined;
  if (type === 'disabled') return ['--thinking=disabled'];
  if (type === 'enabled' && typeof budget === 'number') return [`--max-thinking-tokens=${budget}`];
  return ['--thinking=adaptive'];
}

/** The attempt's settings file (hooks, sandbox), or undefined when the node sets neither. */
async function settingsOf(o: AgentOptions, scratchDir: string): Promise<string | undefined> {
  if (o.hooks === undefined && o.sandbox === undefined) return undefined;
  const settings: Record<string, unknown> = {};
  if (o.sandbox !== undefined) settings.sandbox = { enabled: true, failIfUnavailable: true, ...o.sandbox };
  if (o.hooks !== undefined) {
    const hooks: Record<string, unknown[]> = {};
    let files = 0;
    for (const [event, matchers] of Object.entries(o.hooks)) {
      hooks[event] = [];
      for (const m of matchers) hooks[event].push(await hookMatcher(m, join(scratchDir, `hook-response-${++files}.json`)));
    }
    settings.hooks = hooks;
  }
  const file = join(scratchDir, 'settings.json');
  await writeFile(file, JSON.stringify(settings));
  return file;
}

/** One hook of the node as the CLI's `{ matcher, hooks: [{ type: command, command, timeout }] }`. */
async function hookMatcher(m: HookMatcher, responseFile: string): Promise<unknown> {
  let command = m.command;
  if (command === undefined) {
    // The response is JSON in a file of the attempt; the command only names that file, quoted.
    await writeFile(responseFile, JSON.stringify(m.response ?? {}));
    command = `cat -- ${shellQuote(responseFile)}`;
  }
  return {
    ...(m.matcher !== undefined ? { matcher: m.matcher } : {}),
    hooks: [{ type: 'command', command, ...(m.timeout !== undefined ? { timeout: m.timeout } : {}) }],
  };
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
