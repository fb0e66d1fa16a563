import { isAbsolute } from 'node:path';
import type { AgentOptions, PermissionLevel } from '../../../shared/providers/agent-options.js';

/**
 * A node's permission level and tool options as OpenCode's `permission` config: an ordered map
 * of permission names (a tool's, or `external_directory`, `doom_loop`) to `allow` or `deny`, or
 * to per-pattern rules. OpenCode appends it after its own defaults and decides each call by the
 * LAST rule that matches, so the map opens with `*` (overriding every default) and narrows from
 * there. It never says `ask`: `opencode run` answers an ask by rejecting the call and ending the
 * session's turn (the model is never called again), while a `deny` hands the model the refusal
 * and lets it go on. A tool denied outright is not offered to the model at all.
 *
 * - `read_only`: every permission denied but OpenCode's reading and searching tools; outside the
 *   working directory only the extraDirs can be read.
 * - `workspace`: every tool allowed; `external_directory` (any file tool's path, and the path
 *   arguments of common file commands, outside the working directory) denied but for the
 *   extraDirs. Commands themselves are not confined: a redirect or a script writes anywhere.
 * - `full`: everything allowed.
 */

export type PermissionAction = 'allow' | 'deny';
export type PermissionRules = Record<string, PermissionAction | Record<string, PermissionAction>>;

/** The tools `read_only` keeps: they read files, search, fetch pages, plan, or hand work to a sub-agent (who is read-only too). */
const READ_ONLY_TOOLS = ['read', 'glob', 'grep', 'list', 'lsp', 'skill', 'task', 'todowrite', 'todoread', 'webfetch', 'websearch', 'codesearch'];

/**
 * What no one is there for, at every level: OpenCode's question to the user and its switches into
 * and out of the plan agent (which ask the user) are denied; a repeated identical call (its
 * "doom loop" check, an ask) is allowed, as the level allows the call itself.
 */
const UNATTENDED: PermissionRules = { doom_loop: 'allow', question: 'deny', plan_enter: 'deny', plan_exit: 'deny' };

/** OpenCode asks one permission, `edit`, for each of its file-changing tools. */
const EDIT_TOOLS = new Set(['edit', 'write', 'apply_patch', 'patch', 'multiedit']);
const MCP_RESOURCE_TOOLS = new Set(['list_mcp_resources', 'list_mcp_resource_templates', 'read_mcp_resource']);

/**
 * Claude Code's tool names (a workflow written for it) as OpenCode names the same tools;
 * `mcp__<server>__<tool>` becomes OpenCode's `<server>_<tool>`.
 */
const CLAUDE_NAMES: Readonly<Record<string, string>> = {
  Read: 'read',
  Write: 'write',
  Edit: 'edit',
  MultiEdit: 'edit',
  Bash: 'bash',
  Glob: 'glob',
  Grep: 'grep',
  LS: 'list',
  WebFetch: 'webfetch',
  WebSearch: 'websearch',
  Task: 'task',
  TodoWrite: 'todowrite',
  Skill: 'skill',
};

/** A tool name as the node wrote it, in OpenCode's naming. */
export function opencodeToolName(name: string): string {
  const claude = CLAUDE_NAMES[name];
  if (claude !== undefined) return claude;
  const mcp = /^mcp__([^_]+(?:_[^_]+)*)__(.+)$/.exec(name);
  if (mcp) return `${mcp[1]}_${mcp[2]}`;
  const server = /^mcp__(.+?)(?:__\*)?$/.exec(name);
  if (server) return `${server[1]}_*`;
  return name;
}

/** The permission OpenCode asks before running `tool`. */
export function permissionOf(tool: string): string {
  if (EDIT_TOOLS.has(tool)) return 'edit';
  if (MCP_RESOURCE_TOOLS.has(tool)) return 'read';
  return tool;
}

/** The level's rules with the node's tool options applied (`allowedTools` narrows, `deniedTools` takes away). */
export function permissionRules(options: Pick<AgentOptions, 'permissions' | 'extraDirs' | 'allowedTools' | 'deniedTools'>): PermissionRules {
  const level = levelRules(options.permissions, options.extraDirs);
  return restrict(level, options.allowedTools, options.deniedTools);
}

/**
 * A sub-agent's own rules: OpenCode lays an agent's `permission` over the global one, so the
 * agent's must hold nothing the node's rules deny. `tools` keeps those of them the node allows.
 */
export function agentPermissionRules(node: PermissionRules, tools: readonly string[] | undefined, disallowed: readonly string[] | undefined): PermissionRules | undefined {
  if (tools === undefined && disallowed === undefined) return undefined;
  return restrict(node, tools, disallowed);
}

/** Whether these rules deny `tool` outright (OpenCode then never offers it). */
export function isWithheld(rules: PermissionRules, tool: string): boolean {
  const permission = permissionOf(tool);
  let action: PermissionAction | undefined;
  for (const [key, value] of Object.entries(rules)) {
    if (!wildcardMatch(permission, key)) continue;
    const whole = typeof value === 'string' ? value : value['*'];
    if (whole !== undefined) action = whole;
  }
  return action === 'deny';
}

function levelRules(level: PermissionLevel, extraDirs: readonly string[]): PermissionRules {
  if (level === 'full') return { '*': 'allow', ...UNATTENDED, external_directory: 'allow' };
  const outside: Record<string, PermissionAction> = { '*': 'deny' };
  // OpenCode asks `external_directory` with the pattern `<folder>/*` of the file (or the folder
  // itself for a search); `*` in a pattern spans `/`. A folder whose name holds a wildcard would
  // widen the rule, so it is left out (nothing outside is writable, never more than asked).
  for (const dir of extraDirs) {
    if (!isAbsolute(dir) || /[*?]/.test(dir)) continue;
    const trimmed = dir.replace(/\/+$/, '');
    outside[trimmed] = 'allow';
    outside[`${trimmed}/*`] = 'allow';
  }
  if (level === 'workspace') return { '*': 'allow', ...UNATTENDED, external_directory: outside };
  const rules: PermissionRules = { '*': 'deny', ...UNATTENDED, external_directory: outside };
  for (const tool of READ_ONLY_TOOLS) rules[tool] = 'allow';
  return rules;
}

/** `base` narrowed to the tools in `allowed` (when given), then without those in `denied`. */
function restrict(base: PermissionRules, allowed: readonly string[] | undefined, denied: readonly string[] | undefined): PermissionRules {
  let rules: PermissionRules = { ...base };
  if (allowed !== undefined) {
    rules = { '*': 'deny', ...UNATTENDED, ...(base.external_directory !== undefined ? { external_directory: base.external_directory } : {}) };
    for (const tool of allowed.map(opencodeToolName)) {
      const permission = permissionOf(tool);
      rules[permission] = isWithheld(base, tool) ? 'deny' : 'allow';
    }
  }
  for (const tool of (denied ?? []).map(opencodeToolName)) {
    const permission = permissionOf(tool);
    // Last in the map, so last to match.
    delete rules[permission];
    rules[permission] = 'deny';
  }
  return rules;
}

/** OpenCode's wildcard: `*` spans any characters (`/` too), `?` one; everything else literal. */
function wildcardMatch(text: string, pattern: string): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's').test(text);
}
