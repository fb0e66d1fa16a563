import { readdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { makeProject, writeAt } from './workflow-fixtures.js';

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
});
afterEach(async () => {
  await home.close();
});

const validate = async (payload: unknown, query: Record<string, string> = {}) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/workflows/validate', query, payload: payload as object });
  return { status: res.statusCode, body: res.json() };
};
const node = (id: string, extra: Record<string, unknown> = { prompt: 'hi' }) => ({ id, ...extra });
const workflow = (nodes: unknown[], extra: Record<string, unknown> = {}) => ({ name: 'x', description: 'd', nodes, ...extra });

describe('POST /api/workflows/validate: the acceptance cases', () => {
  it('#4 names a missing description', async () => {
    expect(await validate({ definition: { name: 'x', nodes: [node('a')] } })).toEqual({
      status: 200,
      body: { valid: false, errors: ["Missing required field 'description'"] },
    });
  });

  it('#5 names a duplicate node id', async () => {
    expect((await validate({ definition: workflow([node('a'), node('a')]) })).body).toEqual({
      valid: false,
      errors: ["Duplicate node id: 'a'"],
    });
  });

  it('#6 names an unknown depends_on', async () => {
    const definition = workflow([node('a'), node('b', { prompt: 'hi', depends_on: ['zz'] })]);
    expect((await validate({ definition })).body).toEqual({ valid: false, errors: ["Node 'b' depends_on unknown node 'zz'"] });
  });

  it('#7 names the nodes of a cycle', async () => {
    const definition = workflow([node('a', { prompt: 'hi', depends_on: ['b'] }), node('b', { prompt: 'hi', depends_on: ['a'] })]);
    const { status, body } = await validate({ definition });
    expect(status).toBe(200);
    expect(body.valid).toBe(false);
    expect(body.errors[0]).toMatch(/^Cycle detected among nodes:/);
  });

  it('#8 refuses prompt and bash on one node', async () => {
    const { body } = await validate({ definition: workflow([node('a', { prompt: 'hi', bash: 'echo' })]) });
    expect(body.valid).toBe(false);
    expect(body.errors.join('\n')).toContain('are mutually exclusive');
  });

  it('#9 asks for a runtime on a script node', async () => {
    const { body } = await validate({ definition: workflow([node('s', { script: 'print(1)' })]) });
    expect(body.valid).toBe(false);
    expect(body.errors.join('\n')).toContain("'runtime' is required for script nodes ('bun' or 'uv')");
  });

  it('#10 accepts a clean workflow with an unknown node key as exactly { valid: true }', async () => {
    expect(await validate({ definition: workflow([node('a', { prompt: 'hi', foo: 1 })]) })).toEqual({
      status: 200,
      body: { valid: true },
    });
  });
});

describe('POST /api/workflows/validate', () => {
  it('lists every problem, not only the first', async () => {
    const definition = workflow(
      [node('a', { prompt: 'hi', bash: 'echo' }), node('b', { prompt: 'hi', depends_on: ['zz'] }), node('s', { script: 'x' })],
      { provider: 'nope' },
    );
    const { status, body } = await validate({ definition });
    expect(status).toBe(200);
    expect(body.valid).toBe(false);
    expect(body.errors).toEqual([
      expect.stringContaining("Node 'a': 'prompt' and 'bash' are mutually exclusive"),
      "Node 's': 'runtime' is required for script nodes ('bun' or 'uv')",
      "Node 'b' depends_on unknown node 'zz'",
      expect.stringMatching(/^Unknown provider 'nope'\. Registered: claude, codex/),
    ]);
    expect((await validate({ definition: {} })).body).toEqual({
      valid: false,
      errors: ["Missing required field 'name'", "Missing required field 'description'", "Workflow must have 'nodes:' configuration"],
    });
  });

  it('answers 200 with errors for any definition object, however wrong its fields', async () => {
    for (const definition of [{}, { name: 5, description: [], nodes: 'no' }, { steps: [] }, { name: 'x', description: 'd', nodes: [null] }]) {
      const { status, body } = await validate({ definition });
      expect(status, JSON.stringify(definition)).toBe(200);
      expect(body.valid).toBe(false);
      expect(body.errors.length).toBeGreaterThan(0);
    }
  });

  it('saves nothing', async () => {
    expect((await validate({ definition: workflow([node('a')]) })).body).toEqual({ valid: true });
    await expect(readdir(home.paths.workflows)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await t.app.inject({ url: '/api/workflows/x' })).statusCode).toBe(404);
  });

  it('checks commands as the project at cwd sees them', async () => {
    const project = await makeProject(home);
    await writeAt(project, '.cairn/commands/ship.md', 'Ship it');
    const definition = workflow([node('a', { command: 'ship' })]);
    const without = await validate({ definition });
    expect(without.body.valid).toBe(false);
    expect(without.body.errors.join('\n')).toContain('ship');
    expect(await validate({ definition }, { cwd: project })).toEqual({ status: 200, body: { valid: true } });
  });

  it('refuses a body that is not { definition } with a 400 naming the problem', async () => {
    const cases: [string, unknown, string][] = [
      ['no definition', {}, 'definition is required: send the workflow as an object { name, description, nodes }'],
      ['an array definition', { definition: [] }, 'definition must be an object { name, description, nodes }, not an array'],
      ['a string definition', { definition: 'name: x' }, 'definition must be an object { name, description, nodes }, not a string'],
      ['a null definition', { definition: null }, 'definition must be an object { name, description, nodes }, not null'],
      ['an array body', [1], 'Request body must be a JSON object { "definition": { ... } }'],
      ['an extra field', { definition: {}, save: true }, "Unknown field 'save'; the body has one field, definition"],
    ];
    for (const [what, payload, error] of cases) {
      expect(await validate(payload), what).toEqual({ status: 400, body: { error, code: 'VALIDATION_FAILED' } });
    }
  });

  it('refuses an empty body and a body that is not JSON with a 400, never a 5xx', async () => {
    const send = (payload: string, contentType?: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/workflows/validate',
        payload,
        headers: contentType ? { 'content-type': contentType } : {},
      });
    const empty = await send('', 'application/json');
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toEqual({
      error: 'Request body is empty; send JSON { "definition": { name, description, nodes } }',
      code: 'VALIDATION_FAILED',
    });
    const noBody = await send('');
    expect(noBody.statusCode).toBe(400);
    expect(noBody.json()).toEqual(empty.json());
    const notJson = await send('{ definition: nope', 'application/json');
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json()).toEqual({ error: 'Invalid JSON in request body', code: 'INVALID_JSON' });
    const yaml = await send('name: x', 'text/yaml');
    expect(yaml.statusCode).toBe(415);
  });
});
