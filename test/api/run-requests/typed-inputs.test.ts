import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listen, makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { multipartForm } from '../../helpers/multipart-form.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

/**
 * Typed inputs at the run route, on the in-process server: the contract's `inputs` (text) is
 * converted by each input's declared type, `typedInputs` is checked as it is; a value its type
 * refuses is a 400 naming the input, the type and what was given, and no run is stored.
 */

let home: TempHome;
let t: TestApp;
let url: string;
beforeAll(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  url = await listen(t.app);
  await writeHomeWorkflow(
    home,
    'sized',
    [
      'name: sized',
      'description: typed inputs',
      'inputs:',
      '  count: { type: integer, required: true }',
      '  dry: { type: boolean, default: false }',
      '  tags: { type: array, items: { type: string }, default: [] }',
      '  mode: { type: string, enum: [fast, slow], default: fast }',
      '  note: { default: 5 }',
      'nodes:',
      '  - id: a',
      '    bash: echo "$INPUTS_COUNT"',
    ].join('\n'),
  );
});
afterAll(async () => {
  await home.close();
});

let before: number;
beforeEach(async () => {
  before = (await t.store.listRuns({ limit: 100 })).length;
});

const post = (payload: unknown, route = 'run') =>
  t.app.inject({ method: 'POST', url: `/api/workflows/sized/${route}`, payload: payload as object });

async function refused(payload: unknown, error: string): Promise<void> {
  const res = await post(payload);
  expect(res.statusCode).toBe(400);
  expect(res.json().error).toBe(error);
  expect((await t.store.listRuns({ limit: 100 })).length).toBe(before);
}

describe('typed inputs at POST /api/workflows/{name}/run', () => {
  it('stores typedInputs as the values they are, with typed defaults, and converts the contract’s text inputs', async () => {
    const typed = await post({ typedInputs: { count: 3, tags: ['a', 'b'], dry: true } });
    expect(typed.statusCode).toBe(200);
    expect((await t.store.getRun(typed.json().runId))!.inputs).toEqual({ count: 3, tags: ['a', 'b'], dry: true, mode: 'fast', note: '5' });

    const text = await post({ inputs: { count: '7', dry: 'true', mode: 'slow' }, typedInputs: { tags: ['x'] } });
    expect(text.statusCode).toBe(200);
    const detail = (await t.app.inject({ url: `/api/workflows/runs/${text.json().runId}` })).json();
    expect(detail.run.inputs).toEqual({ count: 7, dry: true, tags: ['x'], mode: 'slow', note: '5' });
  });

  it('400 naming the input, its type and what was given, storing nothing', async () => {
    await refused({ typedInputs: { count: '3' } }, `Input 'count' of workflow 'sized': expected an integer, got the string "3"`);
    await refused({ typedInputs: { count: 2.5 } }, `Input 'count' of workflow 'sized': expected an integer, got number 2.5`);
    await refused({ inputs: { count: 'three' } }, `Input 'count' of workflow 'sized': expected an integer, got the text "three"`);
    await refused(
      { typedInputs: { count: 1, tags: ['a', 2], mode: 'medium' } },
      `Input 'tags' of workflow 'sized': expected an array of string items, but item 1 is number 2; ` +
        `Input 'mode' of workflow 'sized': expected one of "fast", "slow", got the string "medium"`,
    );
    await refused(
      { inputs: { count: '1' }, typedInputs: { count: 1 } },
      `Input 'count' of workflow 'sized' is given twice, as text (inputs) and as a typed value (typedInputs); give it once`,
    );
    await refused(
      { typedInputs: { count: null } },
      `typedInputs value for 'count' must be text, a number, a boolean, an array or an object (null is not a value: leave the input out to take its default)`,
    );
    await refused({ typedInputs: { count: 1, tags: ['a\u0000'] } }, `typedInputs value for 'tags' must not contain a NUL byte (\\u0000)`);
    await refused({ typedInputs: [1] }, 'typedInputs must be an object mapping input names to values');
    // The contract's field stays an object of strings.
    await refused({ inputs: { count: 3 } }, "inputs value for 'count' must be a string");
  });

  it('a dry run checks the same way and shows the typed values', async () => {
    const ok = await post({ typedInputs: { count: 2 } }, 'dry-run');
    expect(ok.statusCode).toBe(200);
    expect(ok.json().inputs).toEqual({ count: 2, dry: false, tags: [], mode: 'fast', note: '5' });
    const bad = await post({ typedInputs: { count: true } }, 'dry-run');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe(`Input 'count' of workflow 'sized': expected an integer, got boolean true`);
  });

  it('takes typedInputs JSON-encoded in a multipart form', async () => {
    const res = await fetch(`${url}/api/workflows/sized/run`, { method: 'POST', body: multipartForm({ typedInputs: '{"count":4,"tags":["m"]}' }) });
    expect(res.status).toBe(200);
    const { runId } = (await res.json()) as { runId: string };
    expect((await t.store.getRun(runId))!.inputs).toMatchObject({ count: 4, tags: ['m'] });
  });

  it('checks a schedule’s text inputs by the declared types when the schedule is made', async () => {
    const schedule = (inputs: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: '/api/schedules', payload: { name: `s${Object.values(inputs).join('')}`, workflow: 'sized', cron: '0 3 * * *', inputs } });
    const bad = await schedule({ count: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe(`Input 'count' of workflow 'sized': expected an integer, got the text "x"`);
    expect((await schedule({ count: '3' })).statusCode).toBe(201);
  });

  it('converts a webhook’s mapped payload value by the type, and refuses one the type cannot read (422), admitting nothing', async () => {
    const secret = 'a-secret-of-32-characters-000000';
    const made = await t.app.inject({
      method: 'POST', url: '/api/hooks',
      payload: { name: 'sized-hook', workflow: 'sized', signature: 'github', secret, inputs: { count: '$.n', dry: '$.dry' } },
    });
    expect(made.statusCode).toBe(201);
    const deliver = (payload: unknown, delivery: string) => {
      const body = JSON.stringify(payload);
      const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
      return fetch(`${url}/api/hooks/sized-hook`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature, 'x-github-delivery': delivery }, body,
      });
    };
    const ok = await deliver({ n: 4, dry: true }, 'd-typed-1');
    expect(ok.status).toBe(202);
    const { runId } = (await ok.json()) as { runId: string };
    expect((await t.store.getRun(runId))!.inputs).toMatchObject({ count: 4, dry: true });
    const runs = (await t.store.listRuns({ limit: 100 })).length;
    const bad = await deliver({ n: 'four' }, 'd-typed-2');
    // A payload that does not fit the inputs is a 422, as a missing required value is (docs/webhooks.md).
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { error: string }).error).toBe(`Input 'count' of workflow 'sized': expected an integer, got the text "four"`);
    expect((await t.store.listRuns({ limit: 100 })).length).toBe(runs);
  });

  it('shows each input’s type and typed default in the workflow view', async () => {
    const view = (await t.app.inject({ url: '/api/workflows/sized' })).json();
    expect(view.workflow.inputs).toEqual({
      count: { type: 'integer', required: true },
      dry: { type: 'boolean', default: false },
      tags: { type: 'array', items: { type: 'string' }, default: [] },
      mode: { type: 'string', enum: ['fast', 'slow'], default: 'fast' },
      note: { default: '5' },
    });
  });
});
