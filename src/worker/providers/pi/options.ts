import type { ProviderRequest } from '../provider-adapter.js';

/**
 * What a node asks of Pi, as Pi's own command line: the tool set (permission level,
 * `allowed_tools`, `denied_tools`), the thinking level (`effort`, `thinking`) and the `pi:` block
 * (extensions and their flags). A value Pi cannot take is a configuration failure naming it, never
 * dropped: Pi itself ignores a tool name it does not know.
 */

/** Pi's built-in tools (`pi --help`, "Built-in Tool Names"). */
export const PI_TOOLS = ['read', 'bash', 'edit', 'write', 'grep', 'find', 'ls'] as const;
/** What Pi offers without `--tools`. */
const DEFAULT_TOOLS: readonly string[] = ['read', 'bash', 'edit', 'write'];
/** The tools that change nothing: all `read_only` offers. */
const READ_ONLY_TOOLS: readonly string[] = ['read', 'grep', 'find', 'ls'];
/** `pi --thinking` levels, `off` aside. */
const THINKING_LEVELS: readonly string[] = ['minimal', 'low', 'medium', 'high', 'xhigh'];
/** An extension's tool or flag name: never an option of Pi's, never a list separator. */
const EXTENSION_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

export type PiPlan =
  | {
      ok: true;
      args: string[];
      /** The model is declared reasoning-capable (`models.json`), so Pi sends `reasoning_effort`. */
      reasoning: boolean;
      /** Load the workspace guard (workspace-guard.ts). */
      workspaceGuard: boolean;
    }
  | { ok: false; error: string };

/** Pi's arguments for a request's options, or why it cannot take them. */
export function planPi(request: Pick<ProviderRequest, 'options' | 'effort'>): PiPlan {
  const { options } = request;
  const block = options.pi ?? {};
  const extensions = block.enableExtensions === true;
  if (block.interactive === true) {
    return {
      ok: false,
      error: "pi.interactive: Cairn runs Pi in print mode (`-p --mode json`), where extensions have no UI; remove 'interactive' from the node's pi block",
    };
  }
  const tools = toolArgs(options, extensions);
  if (!tools.ok) return tools;
  const thinking = thinkingArgs(options.thinking, request.effort);
  if (!thinking.ok) return thinking;
  const flags = extensionFlagArgs(block.extensionFlags, extensions);
  if (!flags.ok) return flags;
  return {
    ok: true,
    args: [...tools.args, ...thinking.args, ...(extensions ? [] : ['--no-extensions']), ...flags.args],
    reasoning: thinking.reasoning,
    workspaceGuard: options.permissions === 'workspace',
  };
}

type Part = { ok: true; args: string[] } | { ok: false; error: string };

function toolArgs(options: ProviderRequest['options'], extensions: boolean): Part {
  const allowed = toolNames(options.allowedTools, 'allowed_tools', extensions);
  if (!allowed.ok) return allowed;
  const denied = toolNames(options.deniedTools, 'denied_tools', extensions);
  if (!denied.ok) return denied;
  // undefined: Pi's default set (and every tool an enabled extension registers).
  let set: string[] | undefined = allowed.names;
  if (options.permissions === 'read_only') set = (set ?? [...READ_ONLY_TOOLS]).filter((t) => READ_ONLY_TOOLS.includes(t));
  if (denied.names !== undefined) set = (set ?? [...DEFAULT_TOOLS]).filter((t) => !denied.names!.includes(t));
  if (set === undefined) return { ok: true, args: [] };
  const unique = [...new Set(set)];
  return { ok: true, args: unique.length === 0 ? ['--no-tools'] : ['--tools', unique.join(',')] };
}

function toolNames(names: string[] | undefined, key: string, extensions: boolean): { ok: true; names: string[] | undefined } | { ok: false; error: string } {
  if (names === undefined) return { ok: true, names: undefined };
  const out: string[] = [];
  const unknown: string[] = [];
  for (const name of names) {
    const lower = name.toLowerCase();
    if ((PI_TOOLS as readonly string[]).includes(lower)) out.push(lower);
    else if (extensions && EXTENSION_NAME.test(name)) out.push(name);
    else unknown.push(name);
  }
  if (unknown.length > 0) {
    return {
      ok: false,
      error: `${key} names ${unknown.map((n) => `'${n}'`).join(', ')}, which Pi does not have: its tools are ${PI_TOOLS.join(', ')}${extensions ? '' : " (an extension's tools only with pi.enableExtensions: true)"}`,
    };
  }
  return { ok: true, names: out };
}

/**
 * `thinking: disabled` turns reasoning off whatever the effort; an effort sets Pi's thinking
 * level; `enabled` or `adaptive` without one asks for `medium` (Pi's own default level).
 */
function thinkingArgs(thinking: unknown, effort: string | undefined): (Part & { ok: true; reasoning: boolean }) | { ok: false; error: string } {
  const shape = typeof thinking === 'string' ? { type: thinking } : ((thinking ?? {}) as { type?: unknown; budgetTokens?: unknown });
  if (shape.budgetTokens !== undefined) {
    return { ok: false, error: 'thinking.budgetTokens: Pi takes a thinking level, not a token budget; remove budgetTokens and set effort (minimal to xhigh)' };
  }
  if (shape.type === 'disabled') return { ok: true, args: ['--thinking', 'off'], reasoning: false };
  if (effort !== undefined) {
    if (!THINKING_LEVELS.includes(effort)) return { ok: false, error: `effort '${effort}': Pi takes ${THINKING_LEVELS.join(', ')}` };
    return { ok: true, args: ['--thinking', effort], reasoning: true };
  }
  if (shape.type === 'enabled' || shape.type === 'adaptive') return { ok: true, args: ['--thinking', 'medium'], reasoning: true };
  return { ok: true, args: [], reasoning: false };
}

/** `--name=value` (`=true` for a boolean), so no flag can stand for one of Pi's own options. */
function extensionFlagArgs(flags: unknown, extensions: boolean): Part {
  if (flags === undefined || flags === null) return { ok: true, args: [] };
  const entries = Object.entries(flags as Record<string, unknown>);
  if (entries.length === 0) return { ok: true, args: [] };
  if (!extensions) return { ok: false, error: 'pi.extensionFlags: extensions are off; set pi.enableExtensions: true to load the project\'s Pi extensions that read these flags' };
  const args: string[] = [];
  for (const [name, value] of entries) {
    if (!EXTENSION_NAME.test(name)) return { ok: false, error: `pi.extensionFlags: '${name}' is not a flag name (letters, digits, '_' and '-')` };
    if (value === false) continue;
    if (value !== true && typeof value !== 'string') return { ok: false, error: `pi.extensionFlags.${name}: a flag is true, false or a string` };
    args.push(`--${name}=${value === true ? 'true' : value}`);
  }
  return { ok: true, args };
}
