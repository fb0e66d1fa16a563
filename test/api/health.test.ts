import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SupervisorHeartbeat } from '../../src/store/schemas/heartbeat.js';
import { makeTestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { moveRun, seedRun } from './fixtures.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const now = Date.parse('2030-01-01T12:00:00.000Z');

function heartbeat(overrides: Partial<SupervisorHeartbeat> = {}): SupervisorHeartbeat {
  return {
    id: 'sup-1',
    pid: 4242,
    hostname: 'test-host',
    started_at: new Date(now - 60_000).toISOString(),
    heartbeat_at: new Date(now - 2_000).toISOString(),
    state: 'running',
    concurrency: {
      limit: 10,
      perRunLimit: 4,
      active: 3,
      queued: 7,
      runs: 2,
      perProvider: { claude: { active: 1, queued: 2 } },
    },
    ...overrides,
  };
}

describe('GET /health and /health/db', () => {
  it('answers ok while the database answers', async () => {
    const { app } = await makeTestApp(home);
    const health = await app.inject({ url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const db = await app.inject({ url: '/health/db' });
    expect(db.statusCode).toBe(200);
    expect(db.json()).toEqual({ status: 'ok', database: 'connected' });
  });

  it('answers 503 disconnected when the database cannot answer', async () => {
    const { app, store } = await makeTestApp(home);
    await store.close();
    const db = await app.inject({ url: '/health/db' });
    expect(db.statusCode).toBe(503);
    expect(db.json()).toEqual({ status: 'error', database: 'disconnected' });
    expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
  });
});

describe('GET /api/health', () => {
  it('reports the live supervisor’s concurrency from its freshest heartbeat', async () => {
    const { app, writer } = await makeTestApp(home, { clock: () => now, version: '9.9.9', openFilesLimit: 1024 });
    await writer.writeHeartbeat(heartbeat({ id: 'old', pid: 1, heartbeat_at: new Date(now - 5_000).toISOString() }));
    await writer.writeHeartbeat(heartbeat());
    const res = await app.inject({ url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ok',
      adapter: 'web',
      version: '9.9.9',
      runningWorkflows: 0,
      concurrency: {
        limit: 10,
        maxConcurrent: 10,
        perRunLimit: 4,
        active: 3,
        queued: 7,
        runs: 2,
        perProvider: { claude: { active: 1, queued: 2 } },
        supervisor: { up: true, state: 'running', id: 'sup-1', pid: 4242, heartbeatAt: new Date(now - 2_000).toISOString() },
        activeConversationIds: [],
        queuedTotal: 0,
        queuedByConversation: {},
      },
      streams: { open: 0, max: 768, maxPerClient: 384, openFilesLimit: 1024 },
    });
  });

  it('counts running runs only', async () => {
    const { app, store, writer } = await makeTestApp(home);
    await moveRun(writer, await seedRun(store), 'running');
    await moveRun(writer, await seedRun(store), 'running');
    await seedRun(store); // pending
    await moveRun(writer, await seedRun(store), 'completed');
    expect((await app.inject({ url: '/api/health' })).json().runningWorkflows).toBe(2);
  });

  it('still answers 200 with the configured limit when no supervisor is alive', async () => {
    await writeFile(home.paths.config, 'concurrency:\n  max: 5\n  perRun: 2\n');
    const { app, writer } = await makeTestApp(home, { clock: () => now });

    const none = (await app.inject({ url: '/api/health' })).json();
    expect(none.concurrency).toMatchObject({ limit: 5, maxConcurrent: 10, perRunLimit: 2, active: 0, queued: 0 });
    expect(none.concurrency.supervisor).toEqual({ up: false, state: 'absent', id: null, pid: null, heartbeatAt: null });

    // Silent for more than ten seconds: gone, even though its last row said it was busy.
    await writer.writeHeartbeat(heartbeat({ heartbeat_at: new Date(now - 11_000).toISOString() }));
    const stale = await app.inject({ url: '/api/health' });
    expect(stale.statusCode).toBe(200);
    expect(stale.json().concurrency).toMatchObject({ limit: 5, active: 0, queued: 0 });
    expect(stale.json().concurrency.supervisor).toMatchObject({ up: false, state: 'running', pid: 4242 });

    await writer.writeHeartbeat(heartbeat({ state: 'stopped' }));
    expect((await app.inject({ url: '/api/health' })).json().concurrency.supervisor).toMatchObject({
      up: false,
      state: 'stopped',
    });
  });
});
