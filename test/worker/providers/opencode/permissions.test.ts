import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeAndCommit } from '../../../helpers/agent-script.js';
import { scratch } from '../agent-harness.js';
import { commitSubjects, offeredTools, opencodeBuilds, openOpencodeSession, toolResultsOf, type OpencodeSession } from './session.js';

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
  it('workspace: reads, writes, edits and commits in the worktree, writes the artifacts folder; a write or a file command outside both is refused, a redirect is not', async () => {
    session = await openOpencodeSession(dir.dir, binaryPath, [
      {
        steps: [
          { tool: 'read', path: 'README.md' },
          { tool: 'write', path: 'notes.txt', content: 'draft\n' },
          { tool: 'edit', path: 'notes.txt', old: 'draft', new: 'final' },
          ...writeAndCommit('notes.txt', 'final\n', 'add notes').slice(1, 2),
          { tool: 'write', path: join(dir.dir, 'artifacts', 'report.md'), content: 'report\n' },
          { tool: 'write', path: join(dir.dir, 'outside', 'escape.txt'), content: 'nope\n' },
          // OpenCode checks the paths a file command names, but it has no sandbox: a redirect is not checked.
          { tool: 'run', command: `touch ${join(dir.dir, 'outside', 'touched.txt')}` },
          { tool: 'run', command: `echo unconfined > ${join(dir.dir, 'outside', 'redirected.txt')}` },
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
    expect(existsSync(join(session.outside, 'touched.txt'))).toBe(false);
    expect(readFileSync(join(session.outside, 'redirected.txt'), 'utf8')).toBe('unconfined\n');
    // Eight calls, the model answered after each; only the write and the touch outside were refused.
    const results = toolResultsOf(chunks);
    const refused = [false, false, false, false, false, true, true, false];
    expect(results.map((r) => r.refused === true)).toEqual(refused);
    expect(results.filter((r) => r.isError).length).toBe(2);
    expect(session.toolResults.map((r) => DENIED.test(r.content))).toEqual(refused);
    expect(session.server.requests).toHaveLength(9);
    const offered = offeredTools(session.server.requests[0]!.body);
    expect(offered).toEqual(expect.arrayContaining(['bash', 'edit', 'read', 'write']));
    // A question to the user would wait for an answer no one gives.
    expect(offered).not.toContain('question');
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
          { tool: 'read', path: join(dir.dir, 'artifacts', 'plan.md') },
          { tool: 'read', path: join(dir.dir, 'outside', 'secret.txt') },
          { say: 'Could not change anything.' },
        ],
      },
    ]);
    writeFileSync(join(session.artifacts, 'plan.md'), 'the plan\n');
    writeFileSync(join(session.outside, 'secret.txt'), 'outside secret\n');
    const { outcome, chunks } = await session.run({ permissions: 'read_only' });
    expect({ status: outcome.status, error: outcome.error }).toEqual({ status: 'completed', error: undefined });
    expect(outcome.output).toBe('Could not change anything.');
    const results = toolResultsOf(chunks);
    // Outside the worktree only the artifacts folder can be read.
    expect(results.map((r) => r.refused === true)).toEqual([false, true, true, true, true, false, true]);
    expect(results[0]!.output).toContain('hello');
    expect(results[5]!.output).toContain('the plan');
    expect(results[6]!.output).not.toContain('outside secret');
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
