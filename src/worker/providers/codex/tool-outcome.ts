import type { PermissionLevel } from '../../../shared/providers/agent-options.js';

/**
 * How a Codex tool call ended, read from the output Codex gave its model: ran, failed, refused by
 * Codex's policy or sandbox, or stopped because the sandbox itself cannot start. Pure.
 *
 * The texts are Codex's own (0.169 and 0.171 alike): a patch outside what the sandbox allows is
 * `patch rejected: ...; rejected by user approval settings`, a command that asks to leave the
 * sandbox is `approval policy is Never; reject command ...`, an MCP tool that needs approval is
 * `MCP tool call requires approval, but approval policy is never`. A command the sandbox let start
 * but stopped at a write prints the kernel's error (`Read-only file system` from bubblewrap's
 * read-only mounts, `Operation not permitted` / `Permission denied` from seccomp or Landlock) and
 * exits non-zero: Codex tells such a denial from a failure the same way.
 */

export interface ToolOutcome {
  isError?: true;
  refused?: true;
  /** bubblewrap's error line when the sandbox could not start (no command can run at this level). */
  sandboxFailure?: string;
}

const policyRefusals = [
  /^patch rejected: /,
  /rejected by user approval settings$/m,
  /^approval policy is never; reject command/i,
  /MCP tool call requires approval, but approval policy is never/,
];
const sandboxDenial = /read-only file system|operation not permitted|permission denied/i;
/** bubblewrap's error in place of the command's output: the sandbox failed before the command ran. */
const sandboxStartFailure = /^bwrap: [^\n]+/;

export function toolOutcome(output: string, level: PermissionLevel): ToolOutcome {
  const exit = exitCodeOf(output);
  const sandboxed = level !== 'full';
  if (exit === undefined) {
    if (policyRefusals.some((r) => r.test(output))) return { isError: true, refused: true };
    return /^apply_patch verification failed/.test(output) ? { isError: true } : {};
  }
  if (exit === 0) return {};
  const startFailure = sandboxed ? sandboxStartFailure.exec(commandOutput(output))?.[0] : undefined;
  if (startFailure !== undefined) return { isError: true, sandboxFailure: startFailure };
  return sandboxed && sandboxDenial.test(output) ? { isError: true, refused: true } : { isError: true };
}

/** What the command itself printed: the text after Codex's `Output:` line, else all of it. */
function commandOutput(output: string): string {
  const marker = output.indexOf('Output:\n');
  return marker < 0 ? output : output.slice(marker + 'Output:\n'.length);
}

/** The exit code a command's output reports (`exec_command`, `apply_patch`, or the older `shell`'s JSON). */
export function exitCodeOf(output: string): number | undefined {
  const text = /^Process exited with code (-?\d+)$/m.exec(output)?.[1] ?? /^Exit code: (-?\d+)$/m.exec(output)?.[1];
  if (text !== undefined) return Number(text);
  try {
    const code = JSON.parse(output)?.metadata?.exit_code;
    return typeof code === 'number' ? code : undefined;
  } catch {
    return undefined;
  }
}
