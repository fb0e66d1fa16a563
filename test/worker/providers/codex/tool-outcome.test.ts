import { describe, expect, it } from 'vitest';
import { toolOutcome } from '../../../../src/worker/providers/codex/tool-outcome.js';

/**
 * Tool outputs as Codex 0.169 and 0.171 gave them to the model (copied from real sessions), and
 * what each means: ran, failed, refused by Codex's policy or sandbox, or the sandbox cannot start.
 */

const command = (code: number, output: string) => `Chunk ID: 3a02b6\nWall time: 0.0100 seconds\nProcess exited with code ${code}\nOriginal token count: 9\nOutput:\n${output}`;

describe('toolOutcome', () => {
  it("refuses what Codex's policy rejected: a patch, a command asking to leave the sandbox, an MCP tool needing approval", () => {
    for (const output of [
      'patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings',
      'patch rejected: writing outside of the project; rejected by user approval settings',
      'approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy is Never',
      'Wall time: 0.0024 seconds\nOutput:MCP tool call requires approval, but approval policy is never',
    ]) {
      expect(toolOutcome(output, 'workspace')).toEqual({ isError: true, refused: true });
    }
  });

  it('refuses a command the sandbox stopped, but not one that failed on its own or ran without a sandbox', () => {
    const denied = command(128, "fatal: Unable to create '/repo/.git/index.lock': Read-only file system\n");
    expect(toolOutcome(denied, 'read_only')).toEqual({ isError: true, refused: true });
    expect(toolOutcome(command(1, '/bin/bash: socket: Operation not permitted\n'), 'workspace')).toEqual({ isError: true, refused: true });
    expect(toolOutcome(denied, 'full')).toEqual({ isError: true });
    expect(toolOutcome(command(2, 'make: *** No rule to make target\n'), 'workspace')).toEqual({ isError: true });
    // A command that printed the words and succeeded ran: nothing was refused.
    expect(toolOutcome(command(0, 'rejected by user approval settings\nRead-only file system\n'), 'workspace')).toEqual({});
  });

  it("tells a patch that failed to apply from a refusal, and a sandbox that cannot start from both", () => {
    expect(toolOutcome('Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. Updated the following files:\nA /repo/notes.txt\n', 'workspace')).toEqual({});
    expect(toolOutcome('apply_patch verification failed: Failed to find expected lines in /repo/a.txt', 'workspace')).toEqual({ isError: true });
    const bwrap = 'bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)';
    expect(toolOutcome(command(1, `${bwrap}\n`), 'read_only')).toEqual({ isError: true, sandboxFailure: bwrap });
    expect(toolOutcome(command(1, `${bwrap}\n`), 'full')).toEqual({ isError: true });
    // A command that ran and printed bubblewrap's words itself is only a failed command.
    expect(toolOutcome(command(1, `running the tests\n${bwrap}\n`), 'workspace')).toEqual({ isError: true });
  });
});
