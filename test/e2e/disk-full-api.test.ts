import { dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { integrityOf, mountSmallDisk, smallDisksAvailable } from '../helpers/small-disk.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * CAIRN_HOME on a real 8 MB disk (a tmpfs, mounted as root) that fills up under a running
 * `cairn serve`: the API says so with a 503 that names the database's folder and what to do,
 * `/health/db` stops saying ok, and once space returns the same requests go through on a sound
 * database.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe.skipIf(!smallDisksAvailable)('a full disk under CAIRN_HOME', () => {
  it('answers write routes 503 STORE_UNAVAILABLE naming the database folder, fails /health/db, and takes the same requests once space returns', async () => {
    const disk = mountSmallDisk(home, home.home, 8);
    await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: one node\nnodes:\n  - id: a\n    bash: echo hi\n');
    const server = await startServer(home);
    const folder = dirname(home.paths.database);
    await disk.fill({ database: home.paths.database });

    for (const [route, body] of [['/api/workflows/plain/run', { message: 'hi' }], ['/api/conversations', {}]] as const) {
      const res = await post(`${server.url}${route}`, body);
      expect(res.status, route).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      const answer = (await res.json()) as { code: string; error: string };
      expect(answer.code).toBe('STORE_UNAVAILABLE');
      expect(answer.error).toMatch(/^Disk full: /);
      expect(answer.error).toContain(folder);
      expect(answer.error).toContain('Free space on that disk');
    }
    // A client retrying through the outage: refused each time, logged once (a line per interval, warn).
    for (let i = 0; i < 10; i++) expect((await post(`${server.url}/api/conversations`, {})).status).toBe(503);
    const lines = server.output().split('\n');
    expect(lines.filter((l) => l.includes('"msg":"api.store_unavailable"'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('"msg":"api.request_failed"'))).toEqual([]);
    const health = await fetch(`${server.url}/health/db`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'error', database: 'disconnected', error: expect.stringContaining(folder) });
    // The process itself is fine: only the database cannot write.
    expect((await fetch(`${server.url}/health`)).status).toBe(200);

    await disk.free();
    await waitFor(async () => (await fetch(`${server.url}/health/db`)).status === 200, { what: '/health/db to say ok again' });
    expect((await post(`${server.url}/api/conversations`, {})).status).toBe(200);
    const { runId } = await startRun(server.url, 'plain', { message: 'hi' });
    const ended = await waitFor(async () => {
      const { run } = await getRun(server.url, runId);
      return ['completed', 'failed', 'cancelled'].includes(run.status) ? run.status : undefined;
    }, { what: 'the run started after space returned to end' });
    expect(ended).toBe('completed');
    await server.stop();
    expect(integrityOf(home.paths.database)).toBe('ok');
  });
});
