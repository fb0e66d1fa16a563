import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';
import { seedRun } from './fixtures.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

describe('requests the server cannot use', () => {
  it('answers 400 Invalid JSON in request body for a body that does not parse', async () => {
    const { app, store } = await makeTestApp(home);
    const run = await seedRun(store);
    const res = await app.inject({
      method: 'POST',
      url: `/api/workflows/runs/${run.id}/cancel`,
      headers: { 'content-type': 'application/json' },
      payload: '{"oops":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid JSON in request body', code: 'INVALID_JSON' });
  });

  it('answers 400 for a body nested deeper than 100 levels, before anything is written', async () => {
    const { app, store } = await makeTestApp(home);
    await writeHomeWorkflow(home, 'hello', 'name: hello\ndescription: says hi\nnodes:\n  - id: a\n    bash: echo hi\n');
    const nested = (depth: number) => `{"config":{"workflows":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`;
    const post = (payload: string) =>
      app.inject({ method: 'POST', url: '/api/workflows/hello/run', headers: { 'content-type': 'application/json' }, payload });
    // 1,100 levels would be a run the store cannot read back (SQLite's JSON stops at 1000);
    // 100,000 levels (600 KB) once overflowed JSON.stringify's stack into a 500.
    for (const depth of [99, 1_100, 100_000]) {
      const res = await post(nested(depth));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'Request body nests objects or arrays more than 100 levels deep; flatten it', code: 'VALIDATION_FAILED' });
    }
    expect(await store.listRuns({ limit: 5 })).toEqual([]);
    // 100 levels in all (the body and config are the first two) still make a run.
    expect((await post(nested(98))).statusCode).toBe(200);
  });

  it('answers 413 for a body over the limit', async () => {
    const { app, store } = await makeTestApp(home, { bodyLimit: 1024 });
    const run = await seedRun(store);
    const res = await app.inject({
      method: 'POST',
      url: `/api/workflows/runs/${run.id}/cancel`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ pad: 'x'.repeat(2048) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'Request body is larger than the 1024-byte limit', code: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers 415 for a content type it does not read', async () => {
    const { app, store } = await makeTestApp(home);
    const run = await seedRun(store);
    const res = await app.inject({
      method: 'POST',
      url: `/api/workflows/runs/${run.id}/cancel`,
      headers: { 'content-type': 'application/xml' },
      payload: '<cancel/>',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(res.json().error).toContain('application/json');
  });

  it('answers 404 naming the route for a path that does not exist', async () => {
    const { app } = await makeTestApp(home);
    const res = await app.inject({ url: '/api/nothing-here?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Route not found: GET /api/nothing-here', code: 'NOT_FOUND' });
  });

  it('answers a server fault with a generic 500 that leaks nothing', async () => {
    const { app, store } = await makeTestApp(home);
    await store.close();
    const res = await app.inject({ url: '/api/workflows/runs' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'Internal server error', code: 'INTERNAL' });
  });

  it('answers 503 from /api/health when the database is gone', async () => {
    const { app, store } = await makeTestApp(home);
    await store.close();
    const res = await app.inject({ url: '/api/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ error: 'Database unavailable', code: 'STORE_UNAVAILABLE' });
  });
});
