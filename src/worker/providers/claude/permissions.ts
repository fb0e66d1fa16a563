import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PermissionLevel } from '../../../shared/providers/agent-options.js';

/**
 * A node's permission level as Claude Code's own mechanism: a permission mode, allow and deny
 * rules, and the directories besides the working directory its file tools may touch. Measured
 * on Claude Code 2.1.100 and 2.1.332 in `-p` mode, where a call that would ask is refused:
 *
 * - `read_only` → `dontAsk`: reads and searches run (Read, Grep, Glob, and the commands the CLI
 *   knows to be read-only, such as `ls`, `cat`, `git status`); every write, edit and other
 *   command is refused ("Permission to use Write has been denied because Claude Code is running
 *   in don't ask mode"). The allow rules of the Claude settings files the CLI reads are turned
 *   into deny rules (deny wins over allow), so a repository's `.claude/settings.json` allowing
 *   `Bash` cannot widen the level (2.1.100 honours such a file's rules).
 * - `workspace` → `acceptEdits` with `Bash` and the node's MCP servers allowed, and `--add-dir`
 *   for each extra directory: file edits inside the working directory and the extra directories,
 *   any command (not confined: no sandbox unless the node asks for one), and a file edit
 *   elsewhere refused ("Claude requested permissions to write to …, but you haven't granted it").
 * - `full` → `bypassPermissions`, which the CLI refuses to start as root ("cannot be used with
 *   root/sudo privileges") unless the environment says it runs in a sandbox (`IS_SANDBOX=1`, the
 *   CLI's own switch; Cairn never sets it). As root, `acceptEdits` with every tool allowed
 *   everywhere: anything runs, and only the CLI's own guard on its settings, `.git/` and shell
 *   start-up files holds for its file tools (commands can still change those).
 */

/** Tools that change nothing; their allow rules in settings files are left alone at `read_only`. */
const readingTools = new Set(['Read', 'Glob', 'Grep', 'LS', 'NotebookRead', 'WebSearch', 'WebFetch', 'TodoWrite', 'ToolSearch', 'Skill']);

/** What `full` allows when it cannot bypass: every tool that asks, everywhere. */
const everyTool = ['Bash', 'Edit', 'Write', 'NotebookEdit', 'Read', 'Glob', 'Grep', 'WebFetch', 'WebSearch'];

export interface PermissionFacts {
  level: PermissionLevel;
  /** Folders besides the working directory the agent may write at `workspace` (`$ARTIFACTS_DIR`). */
  extraDirs: readonly string[];
  /** The node's MCP servers, allowed at `workspace` and `full` (`mcp__<server>`). */
  mcpServers: readonly string[];
  /** Whether the CLI accepts `bypassPermissions`: not root, or its environment has `IS_SANDBOX=1`. */
  canBypass: boolean;
  /** Allow rules of the settings files the CLI reads (see `settingsAllowRules`), for `read_only`. */
  settingsAllowRules: readonly string[];
}

/** The CLI arguments that put a session at `facts.level`. */
export function permissionArgs(facts: PermissionFacts): string[] {
  const dirs = facts.extraDirs.map((dir) => `--add-dir=${dir}`);
  const mcp = facts.mcpServers.map((server) => `mcp__${server}`);
  switch (facts.level) {
    case 'read_only': {
      const widening = facts.settingsAllowRules.filter((rule) => !readingTools.has(toolOfRule(rule)));
      return ['--permission-mode=dontAsk', ...dirs, ...[...new Set(widening)].map((rule) => `--disallowedTools=${rule}`)];
    }
    case 'workspace':
      return ['--permission-mode=acceptEdits', ...dirs, `--allowedTools=${['Bash', ...mcp].join(',')}`];
    case 'full':
      if (facts.canBypass) return ['--permission-mode=bypassPermissions', ...dirs];
      return ['--permission-mode=acceptEdits', ...dirs, `--allowedTools=${[...everyTool, ...mcp].join(',')}`];
  }
}

/** Whether the CLI, started with `env`, accepts `bypassPermissions` (its own rule, read from its source). */
export function canBypassPermissions(env: Readonly<Record<string, string | undefined>>, uid: number | undefined = process.getuid?.()): boolean {
  return uid !== 0 || env.IS_SANDBOX === '1';
}

/**
 * The `permissions.allow` rules of the Claude settings files the CLI reads for `cwd`: the user's
 * (`$CLAUDE_CONFIG_DIR` or `~/.claude`), the project's and the local ones, or those `sources`
 * names (`--setting-sources`). A file that is missing or not JSON adds nothing (the CLI ignores
 * it too).
 */
export async function settingsAllowRules(cwd: string, env: Readonly<Record<string, string | undefined>>, sources?: readonly string[]): Promise<string[]> {
  const configDir = env.CLAUDE_CONFIG_DIR ?? (env.HOME !== undefined ? join(env.HOME, '.claude') : undefined);
  const files: Record<string, string | undefined> = {
    user: configDir !== undefined ? join(configDir, 'settings.json') : undefined,
    project: join(cwd, '.claude', 'settings.json'),
    local: join(cwd, '.claude', 'settings.local.json'),
  };
  const rules: string[] = [];
  for (const [source, file] of Object.entries(files)) {
    if (file === undefined || (sources !== undefined && !sources.includes(source))) continue;
    rules.push(...(await allowRulesOf(file)));
  }
  return rules;
}

async function allowRulesOf(file: string): Promise<string[]> {
  let parsed: any;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return [];
  }
  const allow = parsed?.permissions?.allow;
  return Array.isArray(allow) ? allow.filter((rule: unknown): rule is string => typeof rule === 'string' && rule.trim() !== '') : [];
}

/** `Bash(npm test:*)` → `Bash`. */
function toolOfRule(rule: string): string {
  return rule.trim().replace(/\(.*$/s, '');
}
