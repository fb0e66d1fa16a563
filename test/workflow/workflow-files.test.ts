import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempProject, workflowYaml, type TempProject } from './temp-project.js';

let t: TempProject;
beforeEach(() => {
  t = makeTempProject();
});
afterEach(() => t.close());

const definition = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `${name} says hello`,
  nodes: [{ id: 'greet', prompt: 'Say hello about $ARGUMENTS' }],
  ...extra,
});

describe('saving a workflow', () => {
  it('writes to .cairn/workflows of the project by default, and the listing shows it at once', () => {
    t.catalog.list({ cwd: t.cwd });
    const saved = t.catalog.save('hello', definition('hello'), { cwd: t.cwd });
    expect(saved).toEqual({ workflow: definition('hello'), filename: 'hello.yaml', source: 'project' });
    const path = join(t.cwd, '.cairn', 'workflows', 'hello.yaml');
    expect(parse(readFileSync(path, 'utf8'))).toEqual(definition('hello'));
    expect(t.catalog.get('hello', { cwd: t.cwd })).toMatchObject({ source: 'project', filename: 'hello.yaml' });
    expect(readdirSync(join(t.cwd, '.cairn', 'workflows'))).toEqual(['hello.yaml']);
  });

  it('writes to the home folder for source global', () => {
    const saved = t.catalog.save('hello', definition('hello'), { source: 'global' });
    expect(saved.source).toBe('global');
    expect(existsSync(join(t.home, 'workflows', 'hello.yaml'))).toBe(true);
    expect(t.catalog.get('hello')).toMatchObject({ source: 'global' });
  });

  it('saves unknown keys as written and reports them, then and in every listing', () => {
    const withExtra = { ...definition('hello'), nodes: [{ id: 'a', prompt: 'hi', foo: 1 }] };
    const saved = t.catalog.save('hello', withExtra, { cwd: t.cwd });
    expect(saved.parseWarnings).toEqual(["Node 'a': unknown key 'foo' will be ignored."]);
    expect(t.catalog.list({ cwd: t.cwd }).workflows[0]?.parseWarnings).toEqual(["Node 'a': unknown key 'foo' will be ignored."]);
  });

  it('refuses an invalid source, a missing cwd and a mismatched name', () => {
    expect(() => t.catalog.save('hello', definition('hello'), { cwd: t.cwd, source: 'bogus' })).toThrow(
      expect.objectContaining({ code: 'WORKFLOW_SOURCE_INVALID', message: 'Invalid workflow source' }),
    );
    expect(() => t.catalog.save('hello', definition('hello'), { cwd: join(t.root, 'nope') })).toThrow(
      expect.objectContaining({ code: 'CWD_INVALID' }),
    );
    expect(() => t.catalog.save('hello', definition('hello'), {})).toThrow(expect.objectContaining({ code: 'CWD_INVALID' }));
    expect(() => t.catalog.save('hello', definition('other'), { cwd: t.cwd })).toThrow(
      expect.objectContaining({ code: 'WORKFLOW_INVALID', message: "The definition is named 'other' but is saved as 'hello'; the two must match" }),
    );
  });

  it.each(['../escape', 'a/b', '.hidden', ''])('refuses the workflow name %j', (name) => {
    expect(() => t.catalog.save(name, definition(name), { cwd: t.cwd })).toThrow(expect.objectContaining({ code: 'WORKFLOW_INVALID' }));
  });

  it('validates before writing anything, and lists every problem', () => {
    const bad = { name: 'bad', description: 'd', nodes: [{ id: 'a', prompt: '' }, { id: 'b', prompt: 'x', depends_on: ['zz'] }] };
    expect(() => t.catalog.save('bad', bad, { cwd: t.cwd })).toThrow(
      expect.objectContaining({
        code: 'WORKFLOW_INVALID',
        details: { errors: ["Node 'a': prompt cannot be empty", "Node 'b' depends_on unknown node 'zz'"] },
      }),
    );
    expect(existsSync(join(t.cwd, '.cairn'))).toBe(false);
  });

  it('validates against the project: its commands must exist', () => {
    const usesCommand = { name: 'c', description: 'd', nodes: [{ id: 'a', command: 'team-plan' }] };
    expect(() => t.catalog.save('c', usesCommand, { cwd: t.cwd })).toThrow(expect.objectContaining({ code: 'WORKFLOW_INVALID' }));
    t.write('project:.archon/commands/team-plan.md', 'Plan $ARGUMENTS');
    expect(t.catalog.save('c', usesCommand, { cwd: t.cwd }).filename).toBe('c.yaml');
  });

  it('replaces the file that already declares the name, and overrides an .archon/ file by its file name', () => {
    t.write('project:.cairn/workflows/team/hello-v1.yaml', workflowYaml('hello'));
    expect(t.catalog.save('hello', definition('hello'), { cwd: t.cwd }).filename).toBe('team/hello-v1.yaml');
    t.write('project:.archon/workflows/legacy-name.yaml', workflowYaml('legacy'));
    expect(t.catalog.save('legacy', definition('legacy'), { cwd: t.cwd }).filename).toBe('legacy-name.yaml');
    expect(readFileSync(join(t.cwd, '.archon', 'workflows', 'legacy-name.yaml'), 'utf8')).toBe(workflowYaml('legacy'));
    const list = t.catalog.list({ cwd: t.cwd });
    expect(list.errors).toEqual([]);
    expect(list.workflows.map((w) => `${w.workflow.name}:${w.filename}:${w.workflow.description}`)).toEqual([
      'hello:team/hello-v1.yaml:hello says hello',
      'legacy:legacy-name.yaml:legacy says hello',
    ]);
  });
});

describe('deleting a workflow', () => {
  it('deletes a project workflow, which then disappears from the listing', () => {
    t.catalog.save('hello', definition('hello'), { cwd: t.cwd });
    expect(t.catalog.delete('hello', { cwd: t.cwd })).toEqual({ filename: 'hello.yaml', source: 'project' });
    expect(t.catalog.list({ cwd: t.cwd }).workflows).toEqual([]);
  });

  it('refuses bundled workflows and .archon/ files, and reports unknown names', () => {
    t.write('bundled:workflows/starter.yaml', workflowYaml('starter'));
    t.write('project:.archon/workflows/old.yaml', workflowYaml('old'));
    expect(() => t.catalog.delete('starter', { cwd: t.cwd })).toThrow(
      expect.objectContaining({ code: 'WORKFLOW_READ_ONLY', message: "Workflow 'starter' is bundled with Cairn and cannot be deleted" }),
    );
    expect(() => t.catalog.delete('starter', { source: 'global' })).toThrow(expect.objectContaining({ code: 'WORKFLOW_READ_ONLY' }));
    expect(() => t.catalog.delete('old', { cwd: t.cwd })).toThrow(
      expect.objectContaining({
        code: 'WORKFLOW_READ_ONLY',
        message: "Workflow 'old' is in .archon/workflows/old.yaml, which Cairn reads but never changes; delete that file yourself",
      }),
    );
    expect(existsSync(join(t.cwd, '.archon', 'workflows', 'old.yaml'))).toBe(true);
    expect(() => t.catalog.delete('ghost', { cwd: t.cwd })).toThrow(
      expect.objectContaining({ code: 'WORKFLOW_NOT_FOUND', message: 'Workflow not found: ghost' }),
    );
    expect(() => t.catalog.delete('starter', { cwd: t.cwd, source: 'bundled' })).toThrow(
      expect.objectContaining({ code: 'WORKFLOW_SOURCE_INVALID' }),
    );
  });
});
