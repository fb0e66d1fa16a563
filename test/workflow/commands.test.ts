import { unreadableMessage } from '../../src/workflow/catalog/commands.js';
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

  it('says plainly when a command file cannot be read', () => {
    // chmod 000 cannot make a file unreadable for root (CI runs as root), so the mapping of the
    // read error is checked on the errors the file system gives.
    const denied = Object.assign(new Error("EACCES: permission denied, open 'locked.md'"), { code: 'EACCES' });
    expect(unreadableMessage('locked', denied)).toBe('Cannot read command file locked.md: permission denied');
    const other = Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
    expect(unreadableMessage('locked', other)).toBe('Cannot read command file locked.md: EIO: i/o error, read');
  });
});
