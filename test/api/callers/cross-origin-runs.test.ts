import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listen, makeTestApp, type TestApp } from '../../helpers/app.js';
import { multipartForm } from '../../helpers/multipart-form.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';
import { moveRun, seedRun } from '../fixtures.js';

/**
 * What a page on another site can send without asking the server first (a body-less POST, a
 * multipart form), as a browser sends it: over a real socket, with the browser's headers. Each
 * is refused with 403 CROSS_ORIGIN_REFUSED and changes nothing; the same requests from the
 * server's own origin, or from a client that sends no browser headers (the CLI), still work.
 */

const evil = { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' };

let home: TempHome;
let t: TestApp;
let url: string;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  url = await listen(t.app);
  await writeHomeWorkflow(home, 'stamp', 'name: stamp\ndescription: s\nnodes:\n  - id: a\n    bash: "true"\n');
});
afterEach(async () => {
  await home.close();
});

async function send(path: string, init: RequestInit): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${url}${path}`, init);
  expect(res.headers.get('access-control-allow-origin')).toBeNull();
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

function expectRefused(res: { status: number; body: Record<string, any> }, why: RegExp): void {
  expect(res.status).toBe(403);
  expect(res.body.code).toBe('CROSS_ORIGIN_REFUSED');
  expect(res.body.error).toMatch(why);
  expect(res.body.error).toContain('has no authentication');
}

/** No run, no job, no upload or run folder on disk. */
async function expectNothingQueued(): Promise<void> {
  expect(await t.store.listRuns({ limit: 10 })).toEqual([]);
  const uploads = home.paths.uploads;
  expect(existsSync(uploads) ? readdirSync(uploads) : []).toEqual([]);
  const runs = join(home.paths.workspaces, '_runs');
  expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([]);
}

const config = JSON.stringify({ env: { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: 'touch /tmp/pwned' } });

describe('POST /api/workflows/{name}/run from another web page', () => {
  it('refuses a body-less POST with a foreign Origin', async () => {
    expectRefused(await send('/api/workflows/stamp/run', { method: 'POST', headers: evil }), /POST \/api\/workflows\/stamp\/run was refused: .*Origin: http:\/\/evil\.example/);
    await expectNothingQueued();
  });

  it('refuses a multipart form with a foreign Origin before reading it: no file reaches the disk', async () => {
    const form = multipartForm({ message: 'go', config }, [{ name: 'payload.sh', bytes: 'x'.repeat(200_000) }]);
    expectRefused(await send('/api/workflows/stamp/run', { method: 'POST', headers: evil, body: form }), /Origin: http:\/\/evil\.example/);
    await expectNothingQueued();
  });

  it('refuses a text/plain and an urlencoded body with a foreign Origin (403, not 415)', async () => {
    expectRefused(await send('/api/workflows/stamp/run', { method: 'POST', headers: { ...evil, 'content-type': 'text/plain' }, body: '{}' }), /Origin/);
    expectRefused(
      await send('/api/workflows/stamp/run', { method: 'POST', headers: { ...evil, 'content-type': 'application/x-www-form-urlencoded' }, body: 'message=go' }),
      /Origin/,
    );
    await expectNothingQueued();
  });

  it('refuses a request with Sec-Fetch-Site: cross-site and no Origin', async () => {
    expectRefused(await send('/api/workflows/stamp/run', { method: 'POST', headers: { 'sec-fetch-site': 'cross-site' } }), /Sec-Fetch-Site: cross-site/);
    expectRefused(
      await send('/api/workflows/stamp/run', { method: 'POST', headers: { 'sec-fetch-site': 'same-site', 'content-type': 'application/json' }, body: '{}' }),
      /Sec-Fetch-Site: same-site/,
    );
    await expectNothingQueued();
  });

  it('refuses a request whose Referer is another origin and that has no Origin, quoting only that origin', async () => {
    const res = await send('/api/workflows/stamp/run', { method: 'POST', headers: { referer: 'http://evil.example/page?session=abc123' } });
    expectRefused(res, /Referer: http:\/\/evil\.example\)/);
    expect(res.body.error).not.toContain('abc123');
    await expectNothingQueued();
  });

  it('refuses a form sent by a browser that does not say it comes from the server’s own pages', async () => {
    const form = multipartForm({ message: 'go' });
    expectRefused(await send('/api/workflows/stamp/run', { method: 'POST', headers: { 'sec-fetch-site': 'none' }, body: form }), /multipart\/form-data/);
    await expectNothingQueued();
  });
});

describe('the same requests from the server’s own origin, or from a client without browser headers', () => {
  it('accepts a body-less POST, a JSON body and a multipart form from the server’s own origin', async () => {
    const own = { origin: url, 'sec-fetch-site': 'same-origin' };
    expect((await send('/api/workflows/stamp/run', { method: 'POST', headers: own })).status).toBe(200);
    expect((await send('/api/workflows/stamp/run', { method: 'POST', headers: { ...own, 'content-type': 'application/json' }, body: '{"message":"json"}' })).status).toBe(200);
    const form = multipartForm({ message: 'form' }, [{ name: 'notes.txt', bytes: 'hello' }]);
    expect((await send('/api/workflows/stamp/run', { method: 'POST', headers: own, body: form })).status).toBe(200);
    // Sec-Fetch-Site: same-origin alone is proof enough (a browser that sends no Origin on a same-origin request).
    expect((await send('/api/workflows/stamp/run', { method: 'POST', headers: { 'sec-fetch-site': 'same-origin' }, body: multipartForm({ message: 'sfs' }) })).status).toBe(200);
    expect((await t.store.listRuns({ limit: 10 })).map((run) => run.user_message).sort()).toEqual(['', 'form', 'json', 'sfs']);
  });

  it('accepts the CLI’s requests as before: no Origin, JSON, multipart and no body', async () => {
    expect((await send('/api/workflows/stamp/run', { method: 'POST' })).status).toBe(200);
    expect((await send('/api/workflows/stamp/run', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"json"}' })).status).toBe(200);
    const form = multipartForm({ message: 'form' }, [{ name: 'notes.txt', bytes: 'hello' }]);
    expect((await send('/api/workflows/stamp/run', { method: 'POST', body: form })).status).toBe(200);
    // A Referer of the server's own origin is no reason to refuse.
    expect((await send('/api/workflows/stamp/run', { method: 'POST', headers: { referer: `${url}/dashboard` } })).status).toBe(200);
    expect(await t.store.listRuns({ limit: 10 })).toHaveLength(4);
  });
});

describe('the run operations and the chat from another web page', () => {
  it('refuses cancel, resume, approve, reject, abandon, fan-out retry and delete, and changes no run', async () => {
    const pending = await seedRun(t.store);
    const paused = await moveRun(t.writer, await seedRun(t.store), 'paused');
    const failed = await moveRun(t.writer, await seedRun(t.store), 'failed');
    const before = await Promise.all([pending, paused, failed].map(async (run) => ({ run: await t.store.getRun(run.id), jobs: await t.store.listRunJobs(run.id) })));
    const operations: [string, string][] = [
      ['POST', `/api/workflows/runs/${pending.id}/cancel`],
      ['POST', `/api/workflows/runs/${failed.id}/resume`],
      ['POST', `/api/workflows/runs/${paused.id}/approve`],
      ['POST', `/api/workflows/runs/${paused.id}/reject`],
      ['POST', `/api/workflows/runs/${failed.id}/abandon`],
      ['POST', `/api/workflows/runs/${failed.id}/fan-out/a/retry`],
      ['DELETE', `/api/workflows/runs/${failed.id}`],
    ];
    for (const [method, path] of operations) {
      expectRefused(await send(path, { method, headers: evil }), /Origin: http:\/\/evil\.example/);
      expectRefused(await send(path, { method, headers: { ...evil, 'content-type': 'text/plain' }, body: '{"comment":"ok"}' }), /Origin/);
    }
    const after = await Promise.all([pending, paused, failed].map(async (run) => ({ run: await t.store.getRun(run.id), jobs: await t.store.listRunJobs(run.id) })));
    expect(after).toEqual(before);
  });

  it('refuses a chat message `/workflow run …`: no conversation, message, turn or run', async () => {
    const id = 'evil-chat-1';
    const body = JSON.stringify({ message: '/workflow run stamp go' });
    expectRefused(await send(`/api/conversations/${id}/message`, { method: 'POST', headers: { ...evil, 'content-type': 'text/plain' }, body }), /Origin/);
    expectRefused(await send(`/api/conversations/${id}/message`, { method: 'POST', headers: evil, body: multipartForm({ message: '/workflow run stamp go' }) }), /Origin/);
    expect(await t.store.getConversation(id)).toBeUndefined();
    await expectNothingQueued();
    // The CLI's own chat message goes through.
    const ok = await send(`/api/conversations/${id}/message`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(ok.status).toBe(200);
    expect(await t.store.getConversation(id)).toBeDefined();
  });
});
