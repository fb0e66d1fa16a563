import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * A NUL byte cannot reach a process (environment values and arguments are C strings): a run
 * started with one could only fail later. The request is refused instead, naming the field.
 */

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  await writeHomeWorkflow(
    home,
    'greet',
    'name: greet\ndescription: Greets\ninputs:\n  who: { default: world }\nnodes:\n  - id: a\n    bash: echo "$INPUTS_WHO"\n',
  );
});
afterEach(async () => {
  await home.close();
});

async function start(body: unknown, query = '') {
  return t.app.inject({ method: 'POST', url: `/api/workflows/greet/run${query}`, payload: body as object });
}

async function runCount(): Promise<number> {
  return (await t.app.inject({ url: '/api/workflows/runs' })).json().runs.length;
}

describe('POST /api/workflows/{name}/run refuses NUL bytes', () => {
  it('answers 400 naming message, and queues nothing', async () => {
    const res = await start({ message: 'fix the bug\u0000 please' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'message must not contain a NUL byte (\\u0000)', code: 'VALIDATION_FAILED' });
    expect(await runCount()).toBe(0);
  });

  it('answers 400 naming the input whose value holds one', async () => {
    const res = await start({ inputs: { who: 'wor\u0000ld' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe("inputs value for 'who' must not contain a NUL byte (\\u0000)");
    expect(await runCount()).toBe(0);
  });

  it('answers 400 naming cwd when the query holds one', async () => {
    const res = await start({}, `?cwd=${encodeURIComponent('/tmp/a\u0000b')}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('cwd must not contain a NUL byte (\\u0000)');
  });

  it('still accepts the same text without the NUL byte', async () => {
    const res = await start({ message: 'fix the bug please', inputs: { who: 'world' } });
    expect(res.statusCode).toBe(200);
    const { runId } = res.json();
    const detail = (await t.app.inject({ url: `/api/workflows/runs/${runId}` })).json();
    expect(detail.run).toMatchObject({ user_message: 'fix the bug please', inputs: { who: 'world' } });
  });
});
