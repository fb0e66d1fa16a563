import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The real Claude Code CLIs the tests run: the pinned one (the npm package's `cli.js`, run under
 * this Node) and the newest (its native binary), with the environment that points one at a local
 * Messages API server (test/helpers/anthropic-server.ts) and keeps it off the network and out of
 * the user's own settings.
 */

const require = createRequire(import.meta.url);

/** The pinned CLI, `@anthropic-ai/claude-code/cli.js` (2.1.100). */
export const pinnedClaudeCli = require.resolve('@anthropic-ai/claude-code/cli.js');

/** The newest CLI, `claude-code-latest/bin/claude.exe` (2.1.332), a native binary. */
export const newestClaudeCli = join(dirname(require.resolve('claude-code-latest/package.json')), 'bin', 'claude.exe');

/** One CLI for `describe.each`, with what differs between the versions. */
export interface ClaudeCli {
  name: string;
  path: string;
  /** `--effort` / `CLAUDE_CODE_EFFORT_LEVEL` take `xhigh`. */
  knowsXhigh: boolean;
  /** `bypassPermissions` lets the file tools write `.git/`, `.claude/` and shell start-up files. */
  bypassWritesGuardedFiles: boolean;
}

export const claudeClis: readonly ClaudeCli[] = [
  { name: 'Claude Code 2.1.100 (pinned cli.js)', path: pinnedClaudeCli, knowsXhigh: false, bypassWritesGuardedFiles: false },
  { name: 'Claude Code 2.1.332 (newest native binary)', path: newestClaudeCli, knowsXhigh: true, bypassWritesGuardedFiles: true },
];

/**
 * The environment a CLI needs to talk to a local server at `baseUrl`: its own HOME (where it keeps
 * settings, sessions and skills), no update checks or other traffic, and a key (the server
 * accepts any). For Cairn started by a test, add `CLAUDE_BIN_PATH` (one of the paths above).
 */
export function claudeCliEnv(baseUrl: string, home: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    HOME: home,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
}
