import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempProject, workflowYaml, type TempProject } from './temp-project.js';

let t: TempProject;
beforeEach(() => {
  t = makeTempProject();
});
afterEach(() => t.close());

const summary = (t: TempProject, cwd?: string) =>
  t.catalog.list({ cwd }).workflows.map((w) => `${w.workflow.name}:${w.source}:${w.filename}`);

describe('discovery scopes', () => {
  it('lists project, home and bundled workflows with their source', () => {
    t.write('project:.cairn/workflows/mine.yaml', workflowYaml('mine'));
    t.write('home:workflows/personal.yml', workflowYaml('personal'));
    t.write('bundled:workflows/starter.yaml', workflowYaml('starter'));
    expect(summary(t, t.cwd)).toEqual(['mine:project:mine.yaml', 'personal:global:personal.yml', 'starter:bundled:starter.yaml']);
  });

  it('shows only home and bundled workflows without a cwd', () => {
    t.write('project:.cairn/workflows/mine.yaml', workflowYaml('mine'));
    t.write('home:workflows/personal.yaml', workflowYaml('personal'));
    expect(summary(t)).toEqual(['personal:global:personal.yaml']);
  });

  it('reads one level of subfolders and skips dotfiles and other extensions', () => {
    t.write('project:.cairn/workflows/team/review.yaml', workflowYaml('review'));
    t.write('project:.cairn/workflows/team/deep/too-deep.yaml', workflowYaml('too-deep'));
    t.write('project:.cairn/workflows/.hidden.yaml', workflowYaml('hidden'));
    t.write('project:.cairn/workflows/notes.md', '# not a workflow');
    expect(summary(t, t.cwd)).toEqual(['review:project:team/review.yaml']);
  });

  it('lets a file override a lower scope file of the same name', () => {
    t.write('bundled:workflows/assist.yaml', workflowYaml('assist', 'tags: [bundled]\n'));
    t.write('home:workflows/assist.yaml', workflowYaml('my-assist'));
    expect(summary(t, t.cwd)).toEqual(['my-assist:global:assist.yaml']);
  });

  it('reads .archon/ folders, and .cairn/ wins when both hold the same file name', () => {
    t.write('project:.archon/workflows/legacy.yaml', workflowYaml('legacy'));
    t.write('project:.archon/workflows/shared.yaml', workflowYaml('shared', 'tags: [archon]\n'));
    t.write('project:.cairn/workflows/shared.yaml', workflowYaml('shared', 'tags: [cairn]\n'));
    const list = t.catalog.list({ cwd: t.cwd });
    expect(list.workflows.map((w) => [w.workflow.name, w.workflow.tags])).toEqual([
      ['legacy', undefined],
      ['shared', ['cairn']],
    ]);
    expect(list.errors).toEqual([]);
  });

  it('lets a higher scope own a workflow name declared in another file name', () => {
    t.write('bundled:workflows/assist.yaml', workflowYaml('assist'));
    t.write('project:.cairn/workflows/my-assist.yaml', workflowYaml('assist', 'tags: [mine]\n'));
    const list = t.catalog.list({ cwd: t.cwd });
    expect(list.workflows.map((w) => [w.workflow.name, w.source, w.filename])).toEqual([['assist', 'project', 'my-assist.yaml']]);
  });

  it('drops both files of one scope that declare the same name, with an error naming the other', () => {
    t.write('project:.cairn/workflows/one.yaml', workflowYaml('same'));
    t.write('project:.cairn/workflows/two.yaml', workflowYaml('same'));
    t.write('bundled:workflows/same.yaml', workflowYaml('same'));
    const list = t.catalog.list({ cwd: t.cwd });
    expect(list.workflows).toEqual([]);
    expect(list.errors).toEqual([
      { filename: 'one.yaml', source: 'project', errorType: 'validation_error', error: "Duplicate workflow name 'same' — also declared in .cairn/workflows/two.yaml" },
      { filename: 'two.yaml', source: 'project', errorType: 'validation_error', error: "Duplicate workflow name 'same' — also declared in .cairn/workflows/one.yaml" },
    ]);
  });

  it('hides bundled workflows when the project config says so (Cairn or upstream key)', () => {
    t.write('bundled:workflows/starter.yaml', workflowYaml('starter'));
    t.write('project:.archon/config.yaml', 'defaults:\n  loadDefaultWorkflows: false\n');
    expect(summary(t, t.cwd)).toEqual([]);
    t.write('project:.cairn/config.yaml', 'workflows:\n  bundled: true\n');
    expect(summary(t, t.cwd)).toEqual(['starter:bundled:starter.yaml']);
  });
});

describe('discovery errors', () => {
  it('lists files that do not load, with the error type, and keeps loading the rest', () => {
    t.write('project:.cairn/workflows/good.yaml', workflowYaml('good', '', 'prompt: hi\n    colour: red'));
    t.write('project:.cairn/workflows/broken-yaml.yaml', 'name: [oops\n');
    t.write('project:.cairn/workflows/no-nodes.yaml', 'name: no-nodes\ndescription: d\n');
    t.write('project:.cairn/workflows/bad-node.yaml', workflowYaml('bad-node', '', "bash: ''"));
    const list = t.catalog.list({ cwd: t.cwd });
    expect(list.workflows).toEqual([
      {
        workflow: { name: 'good', description: 'good does a thing', nodes: [{ id: 'a', prompt: 'hi' }] },
        source: 'project',
        filename: 'good.yaml',
        parseWarnings: ["Node 'a': unknown key 'colour' will be ignored."],
      },
    ]);
    expect(list.errors).toEqual([
      { filename: 'bad-node.yaml', source: 'project', errorType: 'validation_error', error: "Node 'a': bash script cannot be empty" },
      { filename: 'broken-yaml.yaml', source: 'project', errorType: 'parse_error', error: expect.stringMatching(/^YAML parse error: /) },
      { filename: 'no-nodes.yaml', source: 'project', errorType: 'validation_error', error: "Workflow must have 'nodes:' configuration" },
    ]);
  });

  it('omits parseWarnings from clean entries', () => {
    t.write('home:workflows/clean.yaml', workflowYaml('clean'));
    expect(t.catalog.list().workflows[0]).not.toHaveProperty('parseWarnings');
  });

  it('expands include: from any scope, and reports an include it cannot find', () => {
    t.write('bundled:workflows/block.yaml', 'name: block\ndescription: d\nnodes:\n  - id: x\n    bash: echo x\n');
    t.write('project:.cairn/workflows/uses.yaml', 'name: uses\ndescription: d\nnodes:\n  - id: b\n    include: block\n');
    t.write('project:.cairn/workflows/dangling.yaml', 'name: dangling\ndescription: d\nnodes:\n  - id: b\n    include: nowhere\n');
    const list = t.catalog.list({ cwd: t.cwd });
    expect(list.workflows.find((w) => w.workflow.name === 'uses')?.workflow.nodes).toEqual([{ id: 'b__x', bash: 'echo x' }]);
    expect(list.errors).toEqual([
      {
        filename: 'dangling.yaml',
        source: 'project',
        errorType: 'validation_error',
        error: "Node 'b': include 'nowhere' cannot be resolved (no loadable workflow named 'nowhere')",
      },
    ]);
  });
});

describe('recommended workflows', () => {
  beforeEach(() => {
    for (const name of ['alpha', 'beta', 'gamma']) t.write(`project:.cairn/workflows/${name}.yaml`, workflowYaml(name));
  });

  it("reads Cairn's key, keeps declared order, drops duplicates and names that were not discovered", () => {
    t.write('project:.cairn/config.yaml', 'workflows:\n  recommended: [gamma, missing, alpha, gamma]\n');
    expect(t.catalog.list({ cwd: t.cwd }).recommended).toEqual(['gamma', 'alpha']);
  });

  it('accepts the upstream key recommendedWorkflows, in .archon/config.yaml too', () => {
    t.write('project:.archon/config.yaml', 'recommendedWorkflows: [beta]\n');
    expect(t.catalog.list({ cwd: t.cwd }).recommended).toEqual(['beta']);
    t.write('project:.cairn/config.yaml', 'recommendedWorkflows: [alpha]\nworkflows:\n  recommended: [gamma]\n');
    expect(t.catalog.list({ cwd: t.cwd }).recommended).toEqual(['gamma']);
  });

  it('is empty without a project, and a broken config is reported, not fatal', () => {
    expect(t.catalog.list().recommended).toEqual([]);
    t.write('project:.cairn/config.yaml', 'workflows:\n  recommended: alpha\n');
    const list = t.catalog.list({ cwd: t.cwd });
    expect(list.recommended).toEqual([]);
    expect(list.workflows).toHaveLength(3);
    expect(list.errors).toEqual([
      { filename: '.cairn/config.yaml', source: 'project', errorType: 'validation_error', error: "'workflows.recommended' must be a list, not a string" },
    ]);
  });
});

describe('the parse cache', () => {
  it('returns the same listing while no file changed', () => {
    t.write('project:.cairn/workflows/a.yaml', workflowYaml('a'));
    const first = t.catalog.list({ cwd: t.cwd });
    expect(t.catalog.list({ cwd: t.cwd })).toBe(first);
  });

  it('shows an edit, a new file, a rename-replaced file and a deletion on the next listing', () => {
    const path = t.write('project:.cairn/workflows/a.yaml', workflowYaml('a'));
    expect(summary(t, t.cwd)).toEqual(['a:project:a.yaml']);

    writeFileSync(path, workflowYaml('a-renamed'));
    expect(summary(t, t.cwd)).toEqual(['a-renamed:project:a.yaml']);

    // Same size and (likely) the same mtime tick: an atomic replace is still seen via the inode.
    const replacement = join(t.cwd, '.cairn', 'workflows', '.tmp');
    writeFileSync(replacement, workflowYaml('b-renamed'));
    renameSync(replacement, path);
    expect(summary(t, t.cwd)).toEqual(['b-renamed:project:a.yaml']);

    t.write('project:.cairn/workflows/c.yaml', workflowYaml('c'));
    expect(summary(t, t.cwd)).toEqual(['b-renamed:project:a.yaml', 'c:project:c.yaml']);

    rmSync(path);
    expect(summary(t, t.cwd)).toEqual(['c:project:c.yaml']);
  });

  it('keeps an unchanged workflow loaded when another file changes, and reloads one whose include changed', () => {
    t.write('project:.cairn/workflows/other.yaml', workflowYaml('other'));
    t.write('project:.cairn/workflows/inner.yaml', workflowYaml('inner', '', 'bash: echo one'));
    t.write('project:.cairn/workflows/outer.yaml', workflowYaml('outer', '', 'include: inner'));
    const before = t.catalog.get('outer', { cwd: t.cwd }).workflow;

    t.write('project:.cairn/workflows/other.yaml', workflowYaml('other', 'tags: [edited]\n'));
    expect(t.catalog.get('other', { cwd: t.cwd }).workflow.tags).toEqual(['edited']);
    expect(t.catalog.get('outer', { cwd: t.cwd }).workflow).toBe(before);

    t.write('project:.cairn/workflows/inner.yaml', workflowYaml('inner', '', 'bash: echo two, longer'));
    expect(t.catalog.get('outer', { cwd: t.cwd }).workflow.nodes).toEqual([{ id: 'a__a', bash: 'echo two, longer' }]);
  });

  it('sees a change to the project config', () => {
    t.write('project:.cairn/workflows/a.yaml', workflowYaml('a'));
    expect(t.catalog.list({ cwd: t.cwd }).recommended).toEqual([]);
    t.write('project:.cairn/config.yaml', 'workflows:\n  recommended: [a]\n');
    expect(t.catalog.list({ cwd: t.cwd }).recommended).toEqual(['a']);
  });
});

describe('get by name', () => {
  it('searches project, then home, then bundled', () => {
    t.write('bundled:workflows/x.yaml', workflowYaml('shared-name'));
    t.write('home:workflows/y.yaml', workflowYaml('shared-name', 'tags: [home]\n'));
    expect(t.catalog.get('shared-name', { cwd: t.cwd })).toMatchObject({ source: 'global', filename: 'y.yaml' });
    t.write('project:.cairn/workflows/z.yaml', workflowYaml('shared-name', 'tags: [project]\n'));
    expect(t.catalog.get('shared-name', { cwd: t.cwd })).toMatchObject({ source: 'project', filename: 'z.yaml' });
  });

  it('throws WORKFLOW_NOT_FOUND with the upstream text, and WORKFLOW_INVALID for a broken file', () => {
    expect(() => t.catalog.get('definitely-missing')).toThrow(expect.objectContaining({
      code: 'WORKFLOW_NOT_FOUND',
      message: 'Workflow not found: definitely-missing',
    }));
    t.write('home:workflows/broken.yaml', 'name: broken\ndescription: d\nnodes:\n  - id: a\n');
    expect(() => t.catalog.get('broken')).toThrow(expect.objectContaining({
      code: 'WORKFLOW_INVALID',
      message: expect.stringMatching(/^Workflow file is invalid: 'broken' is declared in broken\.yaml \(global\), which did not load: Node 'a': must have either/),
    }));
  });
});

describe('interactive workflows (interactive: true) are started by nothing in the background', () => {
  const childRefusal = (name: string) =>
    `workflow '${name}' is interactive ('interactive: true'), so no workflow starts it as a child run or fan-out in the background; ` +
    "run it on its own, or remove 'interactive: true' from its file";

  it('refuses a parent whose workflow: node, fanned out or not, names one; and sees the child become interactive later', () => {
    t.write('project:.cairn/workflows/pairing.yaml', workflowYaml('pairing', 'interactive: true\n'));
    t.write('project:.cairn/workflows/helper.yaml', workflowYaml('helper'));
    t.write('project:.cairn/workflows/one.yaml', workflowYaml('one', '', 'workflow: pairing'));
    t.write('project:.cairn/workflows/many.yaml', workflowYaml('many', '', 'workflow: pairing\n    fan_out: { items: "[1, 2]" }'));
    t.write('project:.cairn/workflows/fine.yaml', workflowYaml('fine', '', 'workflow: helper'));
    const list = t.catalog.list({ cwd: t.cwd });
    expect(list.errors.map((e) => [e.filename, e.error])).toEqual([
      ['many.yaml', `Node 'a': ${childRefusal('pairing')}`],
      ['one.yaml', `Node 'a': ${childRefusal('pairing')}`],
    ]);
    expect(list.workflows.map((w) => w.workflow.name)).toEqual(['fine', 'helper', 'pairing']);
    // What `cairn workflow validate` and PUT /api/workflows check says the same.
    const checked = t.catalog.validate({ name: 'x', description: 'd', nodes: [{ id: 'a', workflow: 'pairing' }] }, { cwd: t.cwd });
    expect(checked.valid ? [] : checked.errors).toEqual([`Node 'a': ${childRefusal('pairing')}`]);

    t.write('project:.cairn/workflows/helper.yaml', workflowYaml('helper', 'interactive: true\n'));
    expect(t.catalog.list({ cwd: t.cwd }).errors.map((e) => e.filename)).toEqual(['fine.yaml', 'many.yaml', 'one.yaml']);
  });

  it('refuses triggers: on an interactive workflow', () => {
    t.write(
      'project:.cairn/workflows/nightly.yaml',
      workflowYaml('nightly', 'interactive: true\ntriggers:\n  - schedule: { cron: "0 3 * * *", timezone: UTC }\n', 'bash: "true"'),
    );
    expect(t.catalog.list({ cwd: t.cwd }).errors.map((e) => e.error)).toEqual([
      "'triggers': workflow 'nightly' is interactive ('interactive: true'), and a schedule starts runs with no one there to drive them; " +
        "run it yourself (cairn workflow run nightly), or remove 'interactive: true' from its file",
    ]);
  });
});
