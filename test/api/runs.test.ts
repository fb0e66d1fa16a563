import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { moveRun, runEvent, seedRun, TEST_SUPERVISOR } from './fixtures.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

describe('GET /api/workflows/runs', () => {
  it('lists runs newest first, filtered by status, conversation and workflow', async () => {
    const { app, store, writer } = await makeTestApp(home);
    const a = await seedRun(store, { workflowName: 'alpha', conversationId: 'conv-a' });
    const b = await seedRun(store, { workflowName: 'beta', conversationId: 'conv-a' });
    const c = await seedRun(store, { workflowName: 'alpha', conversationId: 'conv-c' });
    await moveRun(writer, b, 'running');

    const ids = async (query: string) =>
      (await app.inject({ url: `/api/workflows/runs${query}` })).json().runs.map((r: { id: string }) => r.id);
    expect(await ids('')).toEqual([c.id, b.id, a.id]);
    expect(await ids('?status=running')).toEqual([b.id]);
    expect(await ids('?conversationId=conv-a')).toEqual([b.id, a.id]);
    expect(await ids('?workflow=alpha')).toEqual([c.id, a.id]);
    expect(await ids('?workflow=alpha&conversationId=conv-c')).toEqual([c.id]);
  });

  it('ignores a status it does not know, as upstream clients expect', async () => {
    const { app, store } = await makeTestApp(home);
    await seedRun(store);
    const res = await app.inject({ url: '/api/workflows/runs?status=bogus' });
    expect(res.statusCode).toBe(200);
    expect(res.json().runs).toHaveLength(1);
  });

  it('defaults to 50 runs and clamps limit to 1..200', async () => {
    const { app, store } = await makeTestApp(home);
    for (let i = 0; i < 205; i++) await seedRun(store);
    const count = async (query: string) => (await app.inject({ url: `/api/workflows/runs${query}` })).json().runs.length;
    expect(await count('')).toBe(50);
    expect(await count('?limit=3')).toBe(3);
    expect(await count('?limit=0')).toBe(1);
    expect(await count('?limit=9999')).toBe(200);
    expect(await count('?limit=abc')).toBe(50);
  });

  it('never returns inline env values a run was started with', async () => {
    const { app, store } = await makeTestApp(home);
    await seedRun(store, {
      metadata: { overrides: { config: { env: { API_TOKEN: 'sekret' }, docs: { path: 'd/' } } } },
    });
    const res = await app.inject({ url: '/api/workflows/runs' });
    expect(res.body).not.toContain('sekret');
    expect(res.json().runs[0].metadata.overrides.config).toEqual({ env: { API_TOKEN: '[redacted]' }, docs: { path: 'd/' } });
  });

  it('still lists a run whose stored metadata has a key in another shape, naming the key', async () => {
    const { app, store } = await makeTestApp(home);
    const old = await seedRun(store, {
      // Written by an older version in another shape: the store's type would not allow it.
      metadata: { parse_warnings: 'one warning', workflow_filename: 'old.yaml', legacy_flag: true } as never,
    });
    const secret = await seedRun(store, { metadata: { overrides: { config: { env: { API_TOKEN: 424242 } } } } as never });
    const res = await app.inject({ url: '/api/workflows/runs' });
    expect(res.statusCode).toBe(200);
    const byId = (id: string) => res.json().runs.find((r: { id: string }) => r.id === id);
    // An env value the view cannot read is not shown either: its secret never leaves the server.
    expect(byId(secret.id).metadata).toEqual({ unreadable: { overrides: "config.env value for 'API_TOKEN' must be a string" } });
    expect(res.body).not.toContain('424242');
    const listed = byId(old.id);
    expect(listed.metadata).toEqual({
      workflow_filename: 'old.yaml',
      legacy_flag: true,
      unreadable: { parse_warnings: 'Invalid input: expected array, received string' },
    });
    const detail = await app.inject({ url: `/api/workflows/runs/${old.id}` });
    expect(detail.json().run.metadata.unreadable).toHaveProperty('parse_warnings');
  });
});

describe('GET /api/workflows/runs/{runId}', () => {
  it('returns the run and its events in seq order, with cost_scope on costed events', async () => {
    const { app, store, writer } = await makeTestApp(home);
    const run = await seedRun(store);
    const other = await seedRun(store);
    await moveRun(writer, run, 'running', [runEvent(run, 'workflow_started', null, { workflowName: 'demo' })]);
    await writer.appendEvents([
      runEvent(run, 'node_started', 'a'),
      runEvent(other, 'node_started', 'x'),
      runEvent(run, 'node_completed', 'a', { cost_usd: 0.25, execution: { accounting: 'node' } }),
      runEvent(run, 'node_completed', 'b', { cost_usd: 1.5, execution: { accounting: 'aggregate' } }),
      runEvent(run, 'node_completed', 'c', { cost_usd: 0.5, aggregate: true }),
      runEvent(run, 'node_completed', 'd', { cost_usd: 0.1 }),
    ]);

    const res = await app.inject({ url: `/api/workflows/runs/${run.id}` });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.run).toMatchObject({ id: run.id, status: 'running', workflow_name: 'demo' });
    const events = body.events as { seq: number; event_type: string; step_name: string | null; cost_scope?: string }[];
    expect(events.map((e) => [e.event_type, e.step_name])).toEqual([
      ['workflow_started', null],
      ['node_started', 'a'],
      ['node_completed', 'a'],
      ['node_completed', 'b'],
      ['node_completed', 'c'],
      ['node_completed', 'd'],
    ]);
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((x, y) => x - y));
    expect(events.map((e) => e.cost_scope)).toEqual([undefined, undefined, 'own', 'total', 'total', 'own']);
    expect(events[1]).not.toHaveProperty('cost_scope');
  });

  it('answers 404 Workflow run not found for an unknown run', async () => {
    const { app } = await makeTestApp(home);
    const res = await app.inject({ url: '/api/workflows/runs/does-not-exist' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Workflow run not found', code: 'RUN_NOT_FOUND' });
  });
});

describe('POST /api/workflows/runs/{runId}/cancel', () => {
  it('queues a cancel job for a pending, running or paused run and leaves its status to the supervisor', async () => {
    const { app, store, writer } = await makeTestApp(home);
    const pending = await seedRun(store);
    const running = await moveRun(writer, await seedRun(store), 'running');
    const paused = await moveRun(writer, await seedRun(store), 'paused');

    for (const run of [pending, running, paused]) {
      const res = await app.inject({ method: 'POST', url: `/api/workflows/runs/${run.id}/cancel` });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ success: true });
      expect(res.json().message).toContain('demo');
      expect((await store.getRun(run.id))?.status).toBe(run.status);
    }

    // The supervisor sees the start jobs, then the three cancels, in order.
    const jobs = [];
    const claim = () => writer.claimJob(TEST_SUPERVISOR, 60_000);
    for (let job = await claim(); job; job = await claim()) {
      jobs.push([job.kind, job.run_id]);
      await writer.finishJob(job.id, TEST_SUPERVISOR, 'done');
    }
    expect(jobs.filter(([kind]) => kind === 'cancel_run')).toEqual([
      ['cancel_run', pending.id],
      ['cancel_run', running.id],
      ['cancel_run', paused.id],
    ]);
  });

  it('accepts a JSON content type with an empty body', async () => {
    const { app, store } = await makeTestApp(home);
    const run = await seedRun(store);
    const res = await app.inject({
      method: 'POST',
      url: `/api/workflows/runs/${run.id}/cancel`,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(200);
  });

  it.each(['completed', 'failed', 'cancelled'] as const)('refuses a %s run with 400', async (status) => {
    const { app, store, writer } = await makeTestApp(home);
    const run = await moveRun(writer, await seedRun(store), status);
    const res = await app.inject({ method: 'POST', url: `/api/workflows/runs/${run.id}/cancel` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: `Cannot cancel workflow in '${status}' status`, code: 'RUN_INVALID_STATE' });
  });

  it('answers 404 for an unknown run', async () => {
    const { app } = await makeTestApp(home);
    const res = await app.inject({ method: 'POST', url: '/api/workflows/runs/nope/cancel' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('Workflow run not found');
  });
});
