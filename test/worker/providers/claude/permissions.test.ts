import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canBypassPermissions, permissionArgs } from '../../../../src/worker/providers/claude/permissions.js';
import { claudeClis, newestClaudeCli } from '../../../helpers/claude-cli.js';
import { commitAll, git, makeClaudeWorld, resultsOf, runClaudeSession, type ClaudeWorld } from './session.js';

/**
 * The permission levels on the real Claude Code CLI (the pinned and the newest), each a scripted
 * session in a real git repository judged on the worktree; the server runs as root here, as CI
 * does, so `full` is the mapping that works as root.
 */

let world: ClaudeWorld;
const closers: (() => Promise<void>)[] = [];
beforeEach(() => {
  world = makeClaudeWorld();
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  world.cleanup();
});

const commit = (message: string) => `git add -A && git -c user.name=agent -c user.email=agent@localhost commit -q -m '${message}' && git log --oneline -1`;

describe.each(claudeClis)('claude permissions ($name)', (cli) => {
  it('workspace: reads, writes, edits and commits in the worktree and writes the artifacts folder; a write elsewhere is refused', async () => {
    const run = await runClaudeSession(
      {
        cli,
        world,
        options: { permissions: 'workspace' },
        scripts: [{
          steps: [
            { tool: 'read', path: 'README.md' },
            { tool: 'write', path: 'notes.txt', content: 'one\n' },
            { tool: 'edit', path: 'notes.txt', old: 'one', new: 'two' },
            { tool: 'run', command: commit('agent notes') },
            { tool: 'write', path: join(world.artifacts, 'report.md'), content: 'report\n' },
            { tool: 'write', path: join(world.outside, 'stray.txt'), content: 'stray\n' },
            { say: 'done' },
          ],
        }],
      },
      closers,
    );
    expect(run.outcome.status).toBe('completed');
    expect(run.outcome.output).toBe('done');
    expect(readFileSync(join(world.repo, 'notes.txt'), 'utf8')).toBe('two\n');
    expect(git(world.repo, 'log', '--format=%s', 'main')).toBe('agent notes\ninit\n');
    expect(git(world.repo, 'show', '--format=', '--name-only', 'main')).toBe('notes.txt\n');
    expect(readFileSync(join(world.artifacts, 'report.md'), 'utf8')).toBe('report\n');
    expect(existsSync(join(world.outside, 'stray.txt'))).toBe(false);
    expect(run.results).toHaveLength(6);
    const [stray, ...others] = [run.results[5]!, ...run.results.slice(0, 5)];
    expect(stray).toMatchObject({ isError: true, refused: true });
    expect(stray.output).toContain(join(world.outside, 'stray.txt'));
    for (const r of others) expect(r.isError ?? false, r.output).toBe(false);
    expect(run.seen.filter((r) => r.isError).map((r) => r.tool)).toEqual(['Write']);
  });

  it('read_only: reads (the artifacts folder too) and read-only commands run; every write, edit and command is refused, even where the repository’s settings allow them', async () => {
    // A repository whose Claude settings allow writing and committing: read_only still holds.
    mkdirSync(join(world.repo, '.claude'));
    writeFileSync(join(world.repo, '.claude', 'settings.json'), JSON.stringify({ permissions: { allow: ['Write', 'Bash(touch:*)', 'Bash(git add:*)', 'Bash(git commit:*)'] } }));
    commitAll(world.repo, 'claude settings');
    writeFileSync(join(world.artifacts, 'previous.md'), 'an earlier node wrote this\n');
    const run = await runClaudeSession(
      {
        cli,
        world,
        options: { permissions: 'read_only' },
        scripts: [{
          steps: [
            { tool: 'read', path: 'README.md' },
            { tool: 'read', path: join(world.artifacts, 'previous.md') },
            { tool: 'run', command: 'git status --short && ls' },
            { tool: 'edit', path: 'README.md', old: 'hello', new: 'changed' },
            { tool: 'write', path: 'notes.txt', content: 'one\n' },
            { tool: 'run', command: 'touch made.txt' },
            { tool: 'run', command: commit('agent notes') },
            { tool: 'write', path: join(world.artifacts, 'report.md'), content: 'report\n' },
            { say: 'looked' },
          ],
        }],
      },
      closers,
    );
    expect(run.outcome.status).toBe('completed');
    expect(run.results).toHaveLength(8);
    const [read, readArtifact, status, ...writes] = run.results;
    expect(read!.isError ?? false).toBe(false);
    expect(read!.output).toContain('hello');
    expect(readArtifact!.isError ?? false).toBe(false);
    expect(readArtifact!.output).toContain('an earlier node wrote this');
    expect(status!.isError ?? false, status!.output).toBe(false);
    expect(status!.output).toContain('README.md');
    for (const r of writes) expect(r, r.output).toMatchObject({ isError: true, refused: true });
    expect(readFileSync(join(world.repo, 'README.md'), 'utf8')).toBe('hello\n');
    for (const f of ['notes.txt', 'made.txt']) expect(existsSync(join(world.repo, f))).toBe(false);
    expect(existsSync(join(world.artifacts, 'report.md'))).toBe(false);
    expect(git(world.repo, 'log', '--format=%s', 'main')).toBe('claude settings\ninit\n');
  });

  it('full (as root): writes and runs commands anywhere; only the CLI’s guard on .git/ holds for its file tools', async () => {
    const run = await runClaudeSession(
      {
        cli,
        world,
        options: { permissions: 'full' },
        scripts: [{
          steps: [
            { tool: 'write', path: join(world.outside, 'full.txt'), content: 'anywhere\n' },
            { tool: 'run', command: `echo ran > '${join(world.outside, 'cmd.txt')}' && git -c user.name=agent -c user.email=agent@localhost commit -q --allow-empty -m 'full access'` },
            { tool: 'write', path: '.git/info/cairn-note', content: 'note\n' },
            { say: 'done' },
          ],
        }],
      },
      closers,
    );
    expect(run.outcome.status).toBe('completed');
    expect(readFileSync(join(world.outside, 'full.txt'), 'utf8')).toBe('anywhere\n');
    expect(readFileSync(join(world.outside, 'cmd.txt'), 'utf8')).toBe('ran\n');
    expect(git(world.repo, 'log', '--format=%s', 'main')).toBe('full access\ninit\n');
    const [write, command, guarded] = run.results;
    expect(write!.isError ?? false).toBe(false);
    expect(command!.isError ?? false, command!.output).toBe(false);
    // Claude Code asks before its file tools touch .git/, whatever the allow rules; as root
    // nothing can answer, so the write is refused (a command may still change it).
    expect(guarded, guarded!.output).toMatchObject({ refused: true });
    expect(existsSync(join(world.repo, '.git', 'info', 'cairn-note'))).toBe(false);
  });
});

describe('claude full permissions where the CLI may bypass its checks', () => {
  it('runs bypassPermissions when the CLI accepts it (here: root with the CLI’s IS_SANDBOX=1), so even .git/ is writable', async () => {
    const cli = claudeClis.find((c) => c.path === newestClaudeCli)!;
    const run = await runClaudeSession(
      {
        cli,
        world,
        options: { permissions: 'full' },
        env: { IS_SANDBOX: '1' },
        scripts: [{ steps: [{ tool: 'write', path: '.git/info/cairn-note', content: 'note\n' }, { say: 'done' }] }],
      },
      closers,
    );
    expect(run.outcome.status).toBe('completed');
    expect(resultsOf(run, 'Write')[0]!.isError ?? false).toBe(false);
    expect(readFileSync(join(world.repo, '.git', 'info', 'cairn-note'), 'utf8')).toBe('note\n');
  });

  it('chooses bypassPermissions off root or with IS_SANDBOX=1, and every tool allowed with acceptEdits as root', () => {
    const facts = { level: 'full' as const, extraDirs: ['/runs/a'], mcpServers: ['docs'], settingsAllowRules: [] };
    expect(canBypassPermissions({}, 1000)).toBe(true);
    expect(canBypassPermissions({}, 0)).toBe(false);
    expect(canBypassPermissions({ IS_SANDBOX: '1' }, 0)).toBe(true);
    expect(permissionArgs({ ...facts, canBypass: true })).toEqual(['--permission-mode=bypassPermissions', '--add-dir=/runs/a']);
    expect(permissionArgs({ ...facts, canBypass: false })).toEqual([
      '--permission-mode=acceptEdits',
      '--add-dir=/runs/a',
      '--allowedTools=Bash,Edit,Write,NotebookEdit,Read,Glob,Grep,WebFetch,WebSearch,mcp__docs',
    ]);
  });
});
