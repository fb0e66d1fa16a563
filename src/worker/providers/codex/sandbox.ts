import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { PermissionLevel } from '../../../shared/providers/agent-options.js';

/**
 * A node's permission level as Codex's own mechanism: its sandbox mode (Codex confines every
 * command it runs and checks every patch against it), the folders the sandbox lets commands and
 * patches write besides the working directory, and how it treats MCP tools. The approval policy is
 * always `never` (`codex exec` is unattended): whatever the sandbox does not allow is refused.
 *
 * - `read_only` → `read-only`: nothing is writable; MCP tools run only when they declare
 *   themselves read-only (`writes` approval), the others are refused.
 * - `workspace` → `workspace-write`: the working directory, the run's extra folders (its
 *   artifacts), the attempt's private $TMPDIR, and the repository's git directories. Codex keeps
 *   `.git` read-only inside a writable root, so a `git commit` would be refused; the git
 *   directory (and, in a worktree, the main checkout's common one) is added as a root of its own
 *   so the agent can commit. That also lets it change that repository's hooks and config.
 * - `full` → `danger-full-access`: no sandbox; commands run as the server's user.
 */
export interface CodexSandbox {
  mode: 'read-only' | 'workspace-write' | 'danger-full-access';
  /** Absolute folders writable besides the working directory (`workspace-write` only). */
  writableRoots: string[];
  /** `default_tools_approval_mode` of the node's MCP servers. */
  mcpApproval: 'writes' | 'approve';
}

export async function codexSandbox(level: PermissionLevel, cwd: string, extraDirs: readonly string[], tmpDir: string): Promise<CodexSandbox> {
  if (level === 'read_only') return { mode: 'read-only', writableRoots: [], mcpApproval: 'writes' };
  if (level === 'full') return { mode: 'danger-full-access', writableRoots: [], mcpApproval: 'approve' };
  const roots = [...extraDirs.map((d) => resolve(cwd, d)), tmpDir, ...(await gitDirsOf(cwd))];
  return { mode: 'workspace-write', writableRoots: [...new Set(roots)], mcpApproval: 'approve' };
}

/**
 * The git directory of the repository `cwd` is in and its common directory (they differ in a
 * worktree: `<main>/.git/worktrees/<name>` and `<main>/.git`), found the way git does: the
 * nearest `.git` up from `cwd`, a folder or a `gitdir:` file, then `commondir`. A candidate that
 * holds no `HEAD` is not a git directory and is left out, so a forged `.git` file cannot make an
 * arbitrary folder writable. None outside a repository.
 */
export async function gitDirsOf(cwd: string): Promise<string[]> {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    const kind = await statKind(dotGit);
    if (kind !== undefined) {
      const gitDir = kind === 'dir' ? dotGit : await pointedGitDir(dotGit, dir);
      if (gitDir === undefined || !(await isGitDir(gitDir))) return [];
      const common = await commonDirOf(gitDir);
      return common !== undefined && common !== gitDir && (await isGitDir(common)) ? [gitDir, common] : [gitDir];
    }
    if (dirname(dir) === dir) return [];
  }
}

async function statKind(path: string): Promise<'dir' | 'file' | undefined> {
  try {
    const s = await stat(path);
    return s.isDirectory() ? 'dir' : s.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}

async function pointedGitDir(file: string, base: string): Promise<string | undefined> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const target = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1];
  if (target === undefined) return undefined;
  return isAbsolute(target) ? resolve(target) : resolve(base, target);
}

async function commonDirOf(gitDir: string): Promise<string | undefined> {
  const text = (await readFile(join(gitDir, 'commondir'), 'utf8').catch(() => '')).trim();
  if (text === '') return undefined;
  return isAbsolute(text) ? resolve(text) : resolve(gitDir, text);
}

async function isGitDir(dir: string): Promise<boolean> {
  return (await statKind(join(dir, 'HEAD'))) === 'file';
}
