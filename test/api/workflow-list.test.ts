import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';
import { bashYaml, BUNDLED_WORKFLOW, makeProject, writeAt } from './workflow-fixtures.js';

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
});
afterEach(async () => {
  await home.close();
});

const list = async (cwd?: string) => {
  const res = await t.app.inject({ url: '/api/workflows', query: cwd === undefined ? {} : { cwd } });
  return { status: res.statusCode, body: res.json() };
};
const names = (body: { workflows: { workflow: { name: string } }[] }) => body.workflows.map((w) => w.workflow.name);

describe('GET /api/workflows', () => {
  it('lists bundled and home workflows without cwd, clean ones without parseWarnings and no errors key', async () => {
    await writeHomeWorkflow(home, 'mine', bashYaml('mine'));
    const { status, body } = await list();
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['recommended', 'workflows']);
    expect(body.recommended).toEqual([]);
    const mine = body.workflows.find((w: { workflow: { name: string } }) => w.workflow.name === 'mine');
    expect(mine).toEqual({
      workflow: { name: 'mine', description: 'The mine workflow', nodes: [{ id: 'a', bash: 'echo hi' }] },
      source: 'global',
      filename: 'mine.yaml',
    });
    const bundled = body.workflows.find((w: { workflow: { name: string } }) => w.workflow.name === BUNDLED_WORKFLOW);
    expect(bundled).toMatchObject({ source: 'bundled', filename: `${BUNDLED_WORKFLOW}.yaml` });
    expect(bundled).not.toHaveProperty('parseWarnings');
    expect(names(body)).toEqual([...names(body)].sort());
  });

  it('adds the project’s .cairn and .archon workflows with cwd, and leaves them out without it', async () => {
    const project = await makeProject(home);
    await writeAt(project, '.cairn/workflows/build.yaml', bashYaml('build'));
    await writeAt(project, '.archon/workflows/legacy/deploy.yml', bashYaml('deploy'));
    const withCwd = await list(project);
    expect(withCwd.status).toBe(200);
    expect(withCwd.body.workflows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'project', filename: 'build.yaml', workflow: expect.objectContaining({ name: 'build' }) }),
        expect.objectContaining({ source: 'project', filename: 'legacy/deploy.yml', workflow: expect.objectContaining({ name: 'deploy' }) }),
      ]),
    );
    expect(names((await list()).body)).not.toContain('build');
  });

  it('overrides a bundled workflow by file name from the project', async () => {
    const project = await makeProject(home);
    await writeAt(project, `.cairn/workflows/${BUNDLED_WORKFLOW}.yaml`, bashYaml(BUNDLED_WORKFLOW, 'Project assistant'));
    const entry = (await list(project)).body.workflows.find((w: { workflow: { name: string } }) => w.workflow.name === BUNDLED_WORKFLOW);
    expect(entry).toMatchObject({ source: 'project', workflow: { description: 'Project assistant' } });
  });

  it('reports a file that does not load under errors, and keeps listing the others', async () => {
    const project = await makeProject(home);
    await writeAt(project, '.cairn/workflows/broken.yaml', 'name: broken\ndescription: [unclosed\n');
    await writeAt(project, '.cairn/workflows/no-nodes.yaml', 'name: no-nodes\ndescription: d\n');
    await writeAt(project, '.cairn/workflows/fine.yaml', bashYaml('fine'));
    const { status, body } = await list(project);
    expect(status).toBe(200);
    expect(names(body)).toContain('fine');
    expect(names(body)).not.toContain('broken');
    expect(body.errors).toEqual([
      { filename: 'broken.yaml', source: 'project', error: expect.stringMatching(/^YAML parse error/), errorType: 'parse_error' },
      { filename: 'no-nodes.yaml', source: 'project', error: "Workflow must have 'nodes:' configuration", errorType: 'validation_error' },
    ]);
  });

  it('shows the parse warnings of a saved copy of a workflow with an unknown node key', async () => {
    const definition = { name: 'extra', description: 'Has a stray key', nodes: [{ id: 'a', prompt: 'hi', foo: 1 }] };
    const saved = await t.app.inject({ method: 'PUT', url: '/api/workflows/extra?source=global', payload: { definition } });
    expect(saved.statusCode).toBe(200);
    const warnings = ["Node 'a': unknown key 'foo' will be ignored."];
    expect(saved.json().parseWarnings).toEqual(warnings);
    const entry = (await list()).body.workflows.find((w: { workflow: { name: string } }) => w.workflow.name === 'extra');
    expect(entry.parseWarnings).toEqual(warnings);
    expect(entry.workflow.nodes).toEqual([{ id: 'a', prompt: 'hi' }]);
    expect((await t.app.inject({ url: '/api/workflows/extra' })).json().parseWarnings).toEqual(warnings);
  });

  it('sees a file edited on disk at the next request, without a restart', async () => {
    await writeHomeWorkflow(home, 'edited', bashYaml('edited', 'Before'));
    const before = (await list()).body.workflows.find((w: { workflow: { name: string } }) => w.workflow.name === 'edited');
    expect(before.workflow.description).toBe('Before');

    const path = join(home.paths.workflows, 'edited.yaml');
    await writeFile(path, bashYaml('edited', 'After the edit'));
    const after = (await list()).body.workflows.find((w: { workflow: { name: string } }) => w.workflow.name === 'edited');
    expect(after.workflow.description).toBe('After the edit');

    await writeHomeWorkflow(home, 'added', bashYaml('added'));
    expect(names((await list()).body)).toContain('added');
  });

  it('returns the project config’s recommended names that exist, in declared order', async () => {
    const project = await makeProject(home);
    await writeAt(project, '.cairn/workflows/build.yaml', bashYaml('build'));
    await writeAt(project, '.cairn/config.yaml', `workflows:\n  recommended: [build, missing, ${BUNDLED_WORKFLOW}, build]\n`);
    expect((await list(project)).body.recommended).toEqual(['build', BUNDLED_WORKFLOW]);
    expect((await list()).body.recommended).toEqual([]);
  });

  it('reads the upstream recommendedWorkflows key from .archon/config.yaml', async () => {
    const project = await makeProject(home);
    await writeAt(project, '.archon/config.yaml', `recommendedWorkflows:\n  - ${BUNDLED_WORKFLOW}\n`);
    expect((await list(project)).body.recommended).toEqual([BUNDLED_WORKFLOW]);
  });

  it('refuses a cwd that is relative or does not exist', async () => {
    expect(await list('relative/dir')).toEqual({
      status: 400,
      body: { error: "Invalid cwd: 'relative/dir' is not an absolute path", code: 'CWD_INVALID' },
    });
    const missing = join(await makeProject(home), 'nope');
    expect(await list(missing)).toEqual({
      status: 400,
      body: { error: `Invalid cwd: '${missing}' is not an existing directory`, code: 'CWD_INVALID' },
    });
  });
});

describe('GET /api/workflows/{name}', () => {
  const get = async (name: string, cwd?: string) => {
    const res = await t.app.inject({ url: `/api/workflows/${name}`, query: cwd === undefined ? {} : { cwd } });
    return { status: res.statusCode, body: res.json() };
  };

  it('searches the project, then the home scope, then the bundled workflows', async () => {
    const project = await makeProject(home);
    // Different file names, so each scope keeps its file and the lookup order decides by name.
    await writeAt(project, '.cairn/workflows/project-shared.yaml', bashYaml('shared', 'From the project'));
    await writeHomeWorkflow(home, 'home-shared', bashYaml('shared', 'From home'));
    await writeHomeWorkflow(home, 'home-over-bundled', bashYaml(BUNDLED_WORKFLOW, 'Home assistant'));

    expect(await get('shared', project)).toEqual({
      status: 200,
      body: { workflow: expect.objectContaining({ description: 'From the project' }), filename: 'project-shared.yaml', source: 'project' },
    });
    expect((await get('shared')).body).toMatchObject({ workflow: { description: 'From home' }, source: 'global', filename: 'home-shared.yaml' });
    expect((await get(BUNDLED_WORKFLOW)).body).toMatchObject({ source: 'global', workflow: { description: 'Home assistant' } });
    expect((await get('demo-parallel-checks')).body).toMatchObject({ source: 'bundled', filename: 'demo-parallel-checks.yaml' });
  });

  it('answers 404 with the upstream text for a name nothing declares', async () => {
    expect(await get('definitely-missing')).toEqual({
      status: 404,
      body: { error: 'Workflow not found: definitely-missing', code: 'WORKFLOW_NOT_FOUND' },
    });
  });

  it('answers 400 Invalid workflow name for names with path characters', async () => {
    for (const name of ['..%2Fetc', 'a%5Cb', '.hidden', 'a..b']) {
      expect(await get(name), name).toEqual({ status: 400, body: { error: 'Invalid workflow name', code: 'VALIDATION_FAILED' } });
    }
  });

  it('says why a workflow whose file does not load cannot be read', async () => {
    await writeHomeWorkflow(home, 'half', 'name: half\ndescription: d\nnodes:\n  - id: a\n');
    const { status, body } = await get('half');
    expect(status).toBe(400);
    expect(body.code).toBe('WORKFLOW_INVALID');
    expect(body.error).toMatch(/^Workflow file is invalid: /);
  });

  it('reports a file whose YAML does not parse as failed to load, by its name: line, with the parse error', async () => {
    await writeHomeWorkflow(home, 'colon', 'name: colon\ndescription: Review: the diff\nnodes:\n  - id: a\n    bash: echo hi\n');
    const { status, body } = await get('colon');
    expect(status).toBe(400);
    expect(body).toMatchObject({
      code: 'WORKFLOW_INVALID',
      error: "Workflow file is invalid: 'colon' is declared in colon.yaml (global), which did not load",
      errors: [expect.stringMatching(/^YAML parse error: /)],
    });
  });
});
