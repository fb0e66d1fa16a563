import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { bashYaml, makeProject, writeAt } from './workflow-fixtures.js';

let home: TempHome;
let t: TestApp;
let project: string;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  project = await makeProject(home);
});
afterEach(async () => {
  await home.close();
});

const definition = (name: string | undefined, description = 'Builds the thing') => ({
  ...(name === undefined ? {} : { name }),
  description,
  nodes: [{ id: 'build', bash: 'make' }, { id: 'report', prompt: 'Summarise $build.output', depends_on: ['build'] }],
});
const put = async (name: string, query: Record<string, string>, payload?: unknown) => {
  const res = await t.app.inject({ method: 'PUT', url: `/api/workflows/${name}`, query, ...(payload === undefined ? {} : { payload: payload as object }) });
  return { status: res.statusCode, body: res.json() };
};
const files = async (dir: string) => (existsSync(dir) ? (await readdir(dir)).sort() : []);

describe('PUT /api/workflows/{name}', () => {
  it('saves into the project by default and answers what GET then returns', async () => {
    const saved = await put('build', { cwd: project }, { definition: definition('build') });
    expect(saved).toEqual({
      status: 200,
      body: { workflow: expect.objectContaining({ name: 'build', description: 'Builds the thing' }), filename: 'build.yaml', source: 'project' },
    });
    const dir = join(project, '.cairn', 'workflows');
    expect(await files(dir)).toEqual(['build.yaml']);
    expect(parseYaml(await readFile(join(dir, 'build.yaml'), 'utf8'))).toEqual(definition('build'));

    const got = await t.app.inject({ url: '/api/workflows/build', query: { cwd: project } });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(saved.body);
  });

  it('saves to $CAIRN_HOME/workflows with source=global, visible without cwd', async () => {
    const saved = await put('nightly', { source: 'global' }, { definition: definition('nightly') });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ source: 'global', filename: 'nightly.yaml' });
    expect(await files(home.paths.workflows)).toEqual(['nightly.yaml']);
    expect((await t.app.inject({ url: '/api/workflows/nightly' })).json()).toMatchObject({ source: 'global' });
  });

  it('fills a missing name from the path, and refuses a name that differs', async () => {
    const filled = await put('from-path', { cwd: project }, { definition: definition(undefined) });
    expect(filled.status).toBe(200);
    expect(filled.body.workflow.name).toBe('from-path');
    const written = parseYaml(await readFile(join(project, '.cairn/workflows/from-path.yaml'), 'utf8'));
    expect(Object.keys(written)[0]).toBe('name');
    expect(written.name).toBe('from-path');

    const other = await put('one', { cwd: project }, { definition: definition('two') });
    expect(other).toEqual({
      status: 400,
      body: {
        error: 'Workflow definition is invalid',
        code: 'WORKFLOW_DEFINITION_INVALID',
        detail: "definition.name 'two' does not match the name in the path 'one'; leave name out or make the two the same",
        errors: ["definition.name 'two' does not match the name in the path 'one'; leave name out or make the two the same"],
      },
    });
  });

  it('replaces a saved workflow in place, and the next GET shows the new version', async () => {
    await put('build', { cwd: project }, { definition: definition('build', 'First') });
    const second = await put('build', { cwd: project }, { definition: definition('build', 'Second') });
    expect(second.body).toMatchObject({ filename: 'build.yaml', workflow: { description: 'Second' } });
    expect(await files(join(project, '.cairn/workflows'))).toEqual(['build.yaml']);
    expect((await t.app.inject({ url: '/api/workflows/build', query: { cwd: project } })).json().workflow.description).toBe('Second');
  });

  it('writes over the file that already declares the name, wherever it sits in the folder', async () => {
    await writeAt(project, '.cairn/workflows/team/release-flow.yaml', bashYaml('release'));
    const saved = await put('release', { cwd: project }, { definition: definition('release', 'Rewritten') });
    expect(saved.body.filename).toBe('team/release-flow.yaml');
    expect(await files(join(project, '.cairn/workflows'))).toEqual(['team']);
    expect(await files(join(project, '.cairn/workflows/team'))).toEqual(['release-flow.yaml']);
  });

  it('refuses an invalid definition with every error and writes nothing', async () => {
    const bad = { name: 'bad', nodes: [{ id: 'a', prompt: 'x', bash: 'y' }, { id: 'a', prompt: 'z' }] };
    const res = await put('bad', { cwd: project }, { definition: bad });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Workflow definition is invalid');
    expect(res.body.code).toBe('WORKFLOW_DEFINITION_INVALID');
    expect(res.body.errors).toEqual(
      expect.arrayContaining(["Missing required field 'description'", "Duplicate node id: 'a'", expect.stringContaining('mutually exclusive')]),
    );
    expect(res.body.detail).toBe(res.body.errors.join('; '));
    expect(existsSync(join(project, '.cairn'))).toBe(false);
    expect((await t.app.inject({ url: '/api/workflows/bad', query: { cwd: project } })).statusCode).toBe(404);
  });

  it('says a name or description of the wrong type has the wrong type, not that it is missing', async () => {
    const res = await put('typed', { cwd: project }, { definition: { name: 5 } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      "'name' must be a string, not a number",
      "Missing required field 'description'",
      "Workflow must have 'nodes:' configuration",
    ]);
    const wrong = await put('typed', { cwd: project }, { definition: { ...definition('typed'), description: ['a', 'list'] } });
    expect(wrong.body.errors).toEqual(["'description' must be a string, not a list"]);
    expect(existsSync(join(project, '.cairn'))).toBe(false);
  });

  it('keeps the old file when a replacement is invalid', async () => {
    await put('build', { cwd: project }, { definition: definition('build', 'Good') });
    const before = await readFile(join(project, '.cairn/workflows/build.yaml'), 'utf8');
    expect((await put('build', { cwd: project }, { definition: { name: 'build', nodes: [] } })).status).toBe(400);
    expect(await readFile(join(project, '.cairn/workflows/build.yaml'), 'utf8')).toBe(before);
    expect(await files(join(project, '.cairn/workflows'))).toEqual(['build.yaml']);
  });

  it('#11 answers Invalid workflow source for any other source, before looking at the body', async () => {
    const queries: Record<string, string>[] = [{ source: 'bogus' }, { source: 'bundled', cwd: project }, { source: '' }];
    for (const query of queries) {
      expect(await put('x', query), JSON.stringify(query)).toEqual({
        status: 400,
        body: { error: 'Invalid workflow source', code: 'WORKFLOW_SOURCE_INVALID' },
      });
    }
    const repeated = await t.app.inject({ method: 'PUT', url: '/api/workflows/x?source=global&source=project', payload: { definition: definition('x') } });
    expect(repeated.json()).toEqual({ error: 'Invalid workflow source', code: 'WORKFLOW_SOURCE_INVALID' });
    expect(await files(home.paths.workflows)).toEqual([]);
  });

  it('needs an existing cwd for a project save', async () => {
    const noCwd = await put('build', {}, { definition: definition('build') });
    expect(noCwd).toEqual({ status: 400, body: { error: "A project workflow needs 'cwd' (the project's directory)", code: 'CWD_INVALID' } });
    const missing = join(project, 'gone');
    expect((await put('build', { cwd: missing }, { definition: definition('build') })).body).toEqual({
      error: `Invalid cwd: '${missing}' is not an existing directory`,
      code: 'CWD_INVALID',
    });
    expect((await put('build', { cwd: 'rel' }, { definition: definition('build') })).body.code).toBe('CWD_INVALID');
  });

  it('refuses a name with path characters, and a body without a definition', async () => {
    expect(await put('..%2Fescape', { cwd: project }, { definition: definition(undefined) })).toEqual({
      status: 400,
      body: { error: 'Invalid workflow name', code: 'VALIDATION_FAILED' },
    });
    expect((await put('has space', { cwd: project }, { definition: definition(undefined) })).body.error).toMatch(/^Invalid workflow name 'has space'/);
    expect((await put('build', { cwd: project })).body).toEqual({
      error: 'Request body is empty; send JSON { "definition": { name, description, nodes } }',
      code: 'VALIDATION_FAILED',
    });
    expect((await put('build', { cwd: project }, { definition: 'x' })).status).toBe(400);
    expect(existsSync(join(project, '.cairn'))).toBe(false);
  });

  it('leaves no temporary file behind', async () => {
    for (let i = 0; i < 3; i++) await put('build', { cwd: project }, { definition: definition('build', `v${i}`) });
    const all = await readdir(join(project, '.cairn/workflows'), { withFileTypes: true });
    expect(all.map((e) => e.name)).toEqual(['build.yaml']);
  });
});

describe('DELETE /api/workflows/{name}', () => {
  const del = async (name: string, query: Record<string, string> = {}) => {
    const res = await t.app.inject({ method: 'DELETE', url: `/api/workflows/${name}`, query });
    return { status: res.statusCode, body: res.json() };
  };

  it('deletes a project workflow, after which GET no longer finds it', async () => {
    await put('build', { cwd: project }, { definition: definition('build') });
    expect(await del('build', { cwd: project })).toEqual({
      status: 200,
      body: { deleted: true, name: 'build', filename: 'build.yaml', source: 'project' },
    });
    expect(await files(join(project, '.cairn/workflows'))).toEqual([]);
    expect((await t.app.inject({ url: '/api/workflows/build', query: { cwd: project } })).statusCode).toBe(404);
  });

  it('deletes a home workflow with source=global', async () => {
    await put('nightly', { source: 'global' }, { definition: definition('nightly') });
    expect((await del('nightly', { source: 'global' })).body).toEqual({ deleted: true, name: 'nightly', filename: 'nightly.yaml', source: 'global' });
    expect(await files(home.paths.workflows)).toEqual([]);
  });

  it('refuses to delete a bundled workflow, with or without cwd and in either scope', async () => {
    const refusal = { status: 400, body: { error: 'Cannot delete bundled default workflow: assist', code: 'WORKFLOW_READ_ONLY' } };
    expect(await del('assist')).toEqual(refusal);
    expect(await del('assist', { cwd: project })).toEqual(refusal);
    expect(await del('assist', { source: 'global' })).toEqual(refusal);
    expect((await t.app.inject({ url: '/api/workflows/assist' })).json().source).toBe('bundled');
  });

  it('deletes a home override of a bundled workflow, uncovering the bundled one', async () => {
    await put('assist', { source: 'global' }, { definition: definition('assist', 'My assistant') });
    expect((await del('assist', { source: 'global' })).status).toBe(200);
    expect((await t.app.inject({ url: '/api/workflows/assist' })).json().source).toBe('bundled');
  });

  it('answers 404 for a name nothing in the scope declares', async () => {
    expect(await del('nothing', { cwd: project })).toEqual({ status: 404, body: { error: 'Workflow not found: nothing', code: 'WORKFLOW_NOT_FOUND' } });
    expect((await del('nothing', { source: 'global' })).status).toBe(404);
  });

  it('never deletes a workflow under .archon/', async () => {
    const path = await writeAt(project, '.archon/workflows/legacy.yaml', bashYaml('legacy'));
    const res = await del('legacy', { cwd: project });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('WORKFLOW_READ_ONLY');
    expect(res.body.error).toContain('.archon/workflows/legacy.yaml');
    expect(existsSync(path)).toBe(true);
  });

  it('answers Invalid workflow source for any other source', async () => {
    expect(await del('assist', { source: 'bundled' })).toEqual({ status: 400, body: { error: 'Invalid workflow source', code: 'WORKFLOW_SOURCE_INVALID' } });
  });

  it('needs cwd for a project delete of a name that is not bundled', async () => {
    expect(await del('build')).toEqual({ status: 400, body: { error: "A project workflow needs 'cwd' (the project's directory)", code: 'CWD_INVALID' } });
  });
});
