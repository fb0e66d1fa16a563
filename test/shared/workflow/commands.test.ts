import { chmodSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempProject, type TempProject } from './temp-project.js';

let t: TempProject;
beforeEach(() => {
  t = makeTempProject();
});
afterEach(() => t.close());

describe('command discovery', () => {
  it('lists commands once per name: project .cairn, then .archon (with subfolders), then home, then bundled', () => {
    t.write('bundled:commands/plan.md', 'bundled plan');
    t.write('bundled:commands/review.md', 'bundled review');
    t.write('home:commands/review.md', 'home review');
    t.write('project:.archon/commands/defaults/assist.md', 'archon assist');
    t.write('project:.archon/commands/plan.md', 'archon plan');
    t.write('project:.cairn/commands/plan.md', 'cairn plan');
    t.write('project:.cairn/commands/notes.txt', 'not a command');
    const listed = t.catalog.commands({ cwd: t.cwd }).map((c) => `${c.name}:${c.source}`);
    expect(listed).toEqual(['assist:project', 'plan:project', 'review:global']);
    expect(t.catalog.loadCommand('plan', { cwd: t.cwd })).toMatchObject({ ok: true, text: 'cairn plan', source: 'project' });
    expect(t.catalog.commands().map((c) => `${c.name}:${c.source}`)).toEqual(['plan:bundled', 'review:global']);
  });

  it('hides bundled commands when the project config says so', () => {
    t.write('bundled:commands/plan.md', 'bundled plan');
    t.write('project:.cairn/config.yaml', 'commands:\n  bundled: false\n');
    expect(t.catalog.commands({ cwd: t.cwd })).toEqual([]);
  });
});

describe('loadCommand', () => {
  it('returns the whole file, frontmatter included, as the prompt', () => {
    const text = '---\ndescription: echo\n---\nSay: $ARGUMENTS\n';
    t.write('project:.cairn/commands/echo.md', text);
    expect(t.catalog.loadCommand('echo', { cwd: t.cwd })).toMatchObject({ ok: true, name: 'echo', text });
  });

  it.each(['../secrets', 'a/b', 'a\\b', '.hidden', 'x..y'])('refuses the name %j as a path traversal', (name) => {
    expect(t.catalog.loadCommand(name, { cwd: t.cwd })).toEqual({
      ok: false,
      reason: 'invalid_name',
      message: `Invalid command name (potential path traversal): ${name}`,
    });
  });

  it('fails with a message for a missing or empty command, never an empty prompt', () => {
    expect(t.catalog.loadCommand('nope', { cwd: t.cwd })).toMatchObject({ ok: false, reason: 'not_found', message: expect.stringMatching(/^Command not found: nope\.md/) });
    t.write('project:.cairn/commands/blank.md', '  \n');
    expect(t.catalog.loadCommand('blank', { cwd: t.cwd })).toEqual({ ok: false, reason: 'empty', message: 'Command file is empty: blank.md' });
  });

  it.skipIf(process.getuid?.() === 0)('reports an unreadable command file', () => {
    const path = t.write('project:.cairn/commands/locked.md', 'secret');
    chmodSync(path, 0o000);
    expect(t.catalog.loadCommand('locked', { cwd: t.cwd })).toEqual({
      ok: false,
      reason: 'unreadable',
      message: 'Cannot read command file locked.md: permission denied',
    });
  });
});
