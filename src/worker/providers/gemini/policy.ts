import type { AgentOptions, PermissionLevel } from '../../../shared/providers/agent-options.js';

/**
 * A node's permission level and tool lists in the Gemini CLI's own terms: its approval mode, its
 * workspace directories (where its file tools may write), and a policy file Cairn passes as
 * `--admin-policy`. Pure: adapter.ts writes the file and starts the CLI.
 *
 * Why the admin tier: the CLI orders policy rules by tier (default 1, extension 2, workspace 3,
 * user 4, admin 5), and a trusted repository's own `.gemini/settings.json` can add user-tier
 * rules (`tools.allowed`, `policyPaths`) or name admin policy files (`adminPolicyPaths`).
 * `--admin-policy` replaces the latter, so rules in this file outrank anything the repository
 * or the CLI's defaults say. (A machine whose administrator put policies in the CLI's system
 * folder keeps those instead: the CLI then ignores `--admin-policy`, and says so.)
 *
 * The levels, measured on Gemini CLI 0.61.0 (non-interactive, `--output-format stream-json`):
 * - `read_only`: approval mode `default`, and the policy allows the CLI's read-only tools (its
 *   own `read-only.toml` list) and MCP tools that declare `readOnlyHint`, and denies the rest.
 *   Denied tools are not offered; a call to one is answered `tool_not_registered`.
 * - `workspace`: approval mode `yolo` (every tool runs without asking; the CLI's other modes
 *   turn ordinary commands such as `git -c k=v commit` or `rm -f` into confirmation requests,
 *   which fail when nobody can answer). The CLI's file tools check every path against its
 *   workspace directories (the working directory and the node's extraDirs), so a file written
 *   elsewhere is refused (`Path not in workspace`). Commands are not confined.
 * - `full`: as workspace, with `/` among the workspace directories, so the file tools reach
 *   every path the server's user can.
 * At every level the plan-mode tools are denied: in the default mode a model could enter plan
 * mode and leave it, and the CLI leaves plan mode for `yolo` when nobody can approve the plan.
 */

export type GeminiApprovalMode = 'default' | 'yolo';

export interface GeminiPermissionPlan {
  approvalMode: GeminiApprovalMode;
  /** Directories added to the CLI's workspace (settings `context.includeDirectories`). */
  includeDirectories: string[];
  /** The TOML text of the policy file passed as `--admin-policy`. */
  policy: string;
}

/** The CLI's read-only tools (its `policies/read-only.toml`), plus the subagent entry point. */
export const GEMINI_READ_ONLY_TOOLS = [
  'read_file',
  'read_many_files',
  'list_directory',
  'glob',
  'grep_search',
  'google_web_search',
  'codebase_investigator',
  'cli_help',
  'get_internal_docs',
  'invoke_agent',
  'complete_task',
  'update_topic',
  'tracker_create_task',
  'tracker_update_task',
  'tracker_get_task',
  'tracker_list_tasks',
  'tracker_add_dependency',
  'tracker_visualize',
  'read_mcp_resource',
  'list_mcp_resources',
] as const;

/** Plan mode asks a user to approve a plan; an unattended node has none, and leaving it means `yolo`. */
const PLAN_MODE_TOOLS = ['enter_plan_mode', 'exit_plan_mode'];

/**
 * A tool name as the CLI's policy takes it: a built-in (`read_file`), an MCP tool
 * (`mcp_<server>_<tool>`), or a wildcard (`*`, `mcp_<server>_*`).
 */
const toolNamePattern = /^[A-Za-z0-9_.:*-]{1,128}$/;

/** The names of `allowedTools` / `deniedTools` the CLI could not take, each with why. */
export function invalidToolNames(options: Pick<AgentOptions, 'allowedTools' | 'deniedTools'>): string[] {
  const problems: string[] = [];
  for (const [key, names] of [['allowed_tools', options.allowedTools], ['denied_tools', options.deniedTools]] as const) {
    for (const name of names ?? []) {
      if (!toolNamePattern.test(name) || name.includes('__')) {
        problems.push(`${key} entry ${JSON.stringify(name.slice(0, 80))} is not a Gemini CLI tool name (letters, digits, '_', '-', '.', ':' and '*'; MCP tools are mcp_<server>_<tool>)`);
      }
    }
  }
  return problems;
}

/** How one attempt runs at its level with its tool lists; `mcpServers` are the node's MCP servers. */
export function planGeminiPermissions(options: AgentOptions, mcpServers: readonly string[]): GeminiPermissionPlan {
  const level: PermissionLevel = options.permissions;
  const rules: string[] = [];
  for (const name of options.deniedTools ?? []) rules.push(rule(name, 'deny', 900, { denyMessage: "denied by the node's denied_tools" }));
  rules.push(rule(PLAN_MODE_TOOLS, 'deny', 800, { denyMessage: 'plan mode needs a user to approve the plan; this node runs unattended' }));

  const allowed = options.allowedTools;
  if (level === 'read_only') {
    if (allowed === undefined) {
      rules.push(rule([...GEMINI_READ_ONLY_TOOLS], 'allow', 500));
      rules.push(rule('*', 'allow', 500, { mcpName: '*', readOnlyHint: true }));
    } else {
      const builtIn = allowed.filter((n) => (GEMINI_READ_ONLY_TOOLS as readonly string[]).includes(n));
      if (builtIn.length > 0) rules.push(rule(builtIn, 'allow', 500));
      for (const name of allowed.filter((n) => n.startsWith('mcp_'))) rules.push(rule(name, 'allow', 500, { readOnlyHint: true }));
    }
    rules.push(rule('*', 'deny', 100, { denyMessage: 'this node runs read_only: it may read and search, not write, edit or run commands' }));
  } else if (allowed !== undefined) {
    // The tools named, and (as the upstream does for Claude) the tools of the node's own MCP servers.
    if (allowed.length > 0) {
      rules.push(rule(allowed, 'allow', 500));
      for (const server of mcpServers) rules.push(rule('*', 'allow', 500, { mcpName: server }));
    }
    rules.push(rule('*', 'deny', 100, { denyMessage: "not among the node's allowed_tools" }));
  }
  return {
    approvalMode: level === 'read_only' ? 'default' : 'yolo',
    includeDirectories: [...options.extraDirs, ...(level === 'full' ? ['/'] : [])],
    policy: `# Written by Cairn for one attempt: permissions ${level}.\n\n${rules.join('\n')}`,
  };
}

interface RuleExtras {
  denyMessage?: string;
  /** The rule applies to this MCP server's tools (`*`: any server's). */
  mcpName?: string;
  /** The rule applies only to tools that declare the MCP `readOnlyHint` annotation. */
  readOnlyHint?: boolean;
}

/** One `[[rule]]` table of the CLI's policy TOML. */
function rule(toolName: string | string[], decision: 'allow' | 'deny', priority: number, extras: RuleExtras = {}): string {
  const name = Array.isArray(toolName) ? `[${toolName.map(toml).join(', ')}]` : toml(toolName);
  return [
    '[[rule]]',
    `toolName = ${name}`,
    ...(extras.mcpName !== undefined ? [`mcpName = ${toml(extras.mcpName)}`] : []),
    ...(extras.readOnlyHint ? ['toolAnnotations = { readOnlyHint = true }'] : []),
    `decision = "${decision}"`,
    `priority = ${priority}`,
    ...(extras.denyMessage !== undefined ? [`denyMessage = ${toml(`Cairn: ${extras.denyMessage}.`)}`] : []),
    '',
  ].join('\n');
}

/** A TOML basic string: JSON's escapes (`\"`, `\\`, `\n`, `\uXXXX`) are TOML's. */
function toml(text: string): string {
  return JSON.stringify(text);
}
