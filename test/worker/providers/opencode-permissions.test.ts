import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeAndCommit } from '../../helpers/agent-script.js';
import { scratch } from './agent-harness.js';
import { commitSubjects, offeredTools, opencodeBuilds, openOpencodeSession, toolResultsOf, type OpencodeSession } from './opencode-session.js';

/**
 * The permission levels on the real OpenCode CLI (the pinned build and the newest), each a
 * scripted session in a real git repository judged on the worktree: what was written, what was
 * committed, and which tool calls OpenCode refused.
 */

const DENIED = /prevents you from using this specific tool call/;

let dir: ReturnType<typeof scratch>;
let session: OpencodeSession | undefined;
beforeEach(() => {
  dir = scratch();
});
afterEach(async () => {
  await session?.server.close();
  session = undefined;
  dir.cleanup();
});

describe.each(opencodeBuilds)('OpenCode $version permission levels', ({ binaryPath }) => {
  it('workspace: reads, writes, edits and commits in the worktree, writes the artifacts folder; a write outside both is refused', async () => {
    session = await openOpencodeSession(dir.dir, binaryPath, [
      {
        steps: [
          { tool: 'read', path: 'README.md' },
          { tool: 'write', path: 'notes.txt', content: 'draft\n' },
          { tool: 'edit', path: 'notes.txt', old: 'draft', new: 'final' },
          ...writeAndCommit('notes.txt', 'final\n', 'add notes').slice(1, 2),
          { tool: 'write', path: join(dir.dir, 'artifacts', 'report.md'), content: 'report\n' },
          { tool: 'write', path: join(dir.dir, 'outside', 'escape.txt'), content: 'nope\n' },
          { say: 'Committed notes.txt.' },
        ],
      },
    ]);
    const { outcome, chunks } = await session.run({ permissions: 'workspace' });
    expect({ status: outcome.status, error: outcome.error }).toEqual({ status: 'completed', error: undefined });
    expect(outcome.output).toBe('Committed notes.txt.');
    expect(readFileSync(join(session.repo, 'notes.txt'), 'utf8')).toBe('final\n');
    expect(commitSubjects(session.repo)).toEqual(['add notes', 'init']);
    expect(readFileSync(join(session.artifacts, 'report.md'), 'utf8')).toBe('report\n');
    expect(existsSync(join(session.outside, 'escape.txt'))).toBe(false);
    // Six calls, the model answered after each; only the write outside was refused.
    const results = toolResultsOf(chunks);
    expect(results).toHaveLength(6);
    expect(results.map((r) => r.refused === true)).toEqual([false, false, false, false, false, true]);
    expect(results.slice(0, 5).every((r) => !r.isError)).toBe(true);
    expect(session.toolResults.map((r) => DENIED.test(r.content))).toEqual([false, false, false, false, false, true]);
    expect(session.server.requests).toHaveLength(7);
    expect(offeredTools(session.server.requests[0]!.body)).toEqual(expect.arrayContaining(['bash', 'edit', 'read', 'write']));
  });

  it('read_only: reads; every write, edit and command is refused, nothing is written or committed', async () => {
    session = await openOpencodeSession(dir.dir, binaryPath, [
      {
        steps: [
          { tool: 'read', path: 'README.md' },
          { tool: 'write', path: 'notes.txt', content: 'draft\n' },
          { tool: 'edit', path: 'README.md', old: 'hello', new: 'changed' },
          { tool: 'run', command: "touch made-by-bash && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m 'sneaky'" },
          { tool: 'write', path: join(dir.dir, 'artifacts', 'report.md'), content: 'report\n' },
          { say: 'Could not change anything.' },
        ],
      },
    ]);
    const { outcome, chunks } = await session.run({ permissions: 'read_only' });
    expect({ status: outcome.status, error: outcome.error }).toEqual({ status: 'completed', error: undefined });
    expect(outcome.output).toBe('Could not change anything.');
    const results = toolResultsOf(chunks);
    expect(results.map((r) => r.refused === true)).toEqual([false, true, true, true, true]);
    expect(results[0]!.output).toContain('hello');
    expect(readFileSync(join(session.repo, 'README.md'), 'utf8')).toBe('hello\n');
    for (const f of [join(session.repo, 'notes.txt'), join(session.repo, 'made-by-bash'), join(session.artifacts, 'report.md')]) expect(existsSync(f)).toBe(false);
    expect(commitSubjects(session.repo)).toEqual(['init']);
    // The tools that change things are not even offered.
    const offered = offeredTools(session.server.requests[0]!.body);
    expect(offered).toContain('read');
    for (const t of ['bash', 'edit', 'write']) expect(offered).not.toContain(t);
  });

  it('full: writes outside the working directory', async () => {
    session = await openOpencodeSession(dir.dir, binaryPath, [
      {
        steps: [
          { tool: 'write', path: join(dir.dir, 'outside', 'anywhere.txt'), content: 'full\n' },
          { tool: 'run', command: `cat ${join(dir.dir, 'outside', 'anywhere.txt')}` },
          { say: 'Done.' },
        ],
      },
    ]);
    const { outcome, chunks } = await session.run({ permissions: 'full', extraDirs: [] });
    expect({ status: outcome.status, error: outcome.error }).toEqual({ status: 'completed', error: undefined });
    expect(readFileSync(join(session.outside, 'anywhere.txt'), 'utf8')).toBe('full\n');
    const results = toolResultsOf(chunks);
    expect(results.map((r) => r.refused === true || r.isError === true)).toEqual([false, false]);
    expect(results[1]!.output).toContain('full');
  });
});
