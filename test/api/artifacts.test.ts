import { randomUUID } from 'node:crypto';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { listen, makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { newRun } from '../store/fixtures.js';

/** `GET /api/runs/{runId}/artifacts` and `GET /api/artifacts/{runId}/{path}` over a real home. */

let home: TempHome;
let t: TestApp;
let runId: string;
let dir: string;
beforeEach(async () => {
  base = undefined;
  home = await makeTempHome();
  t = await makeTestApp(home);
  const run = await t.writer.createRun(newRun({ codebaseId: 'acme/widgets' }));
  runId = run.id;
  dir = home.paths.codebaseRunArtifacts('acme', 'widgets', runId);
  await mkdir(join(dir, 'reports', 'deep'), { recursive: true });
  await mkdir(join(dir, '.cairn', 'node-outputs'), { recursive: true });
  await writeFile(join(dir, 'summary.md'), '# Done\n');
  await writeFile(join(dir, 'reports', 'b.json'), '{"ok":true}');
  await writeFile(join(dir, 'reports', 'deep', 'a.txt'), 'deep');
  await writeFile(join(dir, '.hidden'), 'x');
  await writeFile(join(dir, '.cairn', 'node-outputs', 'x.out'), 'x');
  await writeFile(join(home.home, 'secret.txt'), 'outside');
  await symlink(join(home.home, 'secret.txt'), join(dir, 'link-out.txt'));
  await symlink(join(dir, 'summary.md'), join(dir, 'link-in.md'));
});
afterEach(async () => {
  await home.close();
});

const get = (url: string) => t.app.inject({ url });
let base: URL | undefined;

/** A GET sent byte for byte: fetch and inject resolve `..` segments before sending, a hostile client does not. */
async function rawGet(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  base ??= new URL(await listen(t.app));
  const { port, hostname } = base;
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body: JSON.parse(body) as Record<string, unknown> };
}

describe('GET /api/runs/{runId}/artifacts', () => {
  it('lists regular files sorted by path, skipping dotfiles and not following symlinks', async () => {
    const res = await get(`/api/runs/${runId}/artifacts`);
    expect(res.statusCode).toBe(200);
    const files = res.json().files;
    expect(files.map((f: { path: string }) => f.path)).toEqual(['reports/b.json', 'reports/deep/a.txt', 'summary.md']);
    expect(files[2]).toEqual({ path: 'summary.md', size: 7, modifiedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });
  });

  it('answers { files: [] } for a run without a codebase, or whose codebase id is not owner/repo', async () => {
    const scratch = await t.writer.createRun(newRun());
    await mkdir(home.paths.runArtifacts(scratch.id), { recursive: true });
    await writeFile(join(home.paths.runArtifacts(scratch.id), 'x.txt'), 'x');
    expect((await get(`/api/runs/${scratch.id}/artifacts`)).json()).toEqual({ files: [] });
    const odd = await t.writer.createRun(newRun({ codebaseId: 'not-owner-repo' }));
    expect((await get(`/api/runs/${odd.id}/artifacts`)).json()).toEqual({ files: [] });
    const empty = await t.writer.createRun(newRun({ codebaseId: 'acme/widgets' }));
    expect((await get(`/api/runs/${empty.id}/artifacts`)).json()).toEqual({ files: [] });
  });

  it('answers 400 Invalid run id for ids that are not letters, digits, - and _, and 404 for an unknown run', async () => {
    const raw = await rawGet('/api/runs/../artifacts');
    expect(raw).toEqual({ status: 400, body: { error: 'Invalid run id', code: 'VALIDATION_FAILED' } });
    for (const bad of ['bad!id', 'a.b', '%2e%2e', 'x%00y', '%2E.']) {
      expect(await rawGet(`/api/runs/${bad}/artifacts`), bad).toEqual({ status: 400, body: { error: 'Invalid run id', code: 'VALIDATION_FAILED' } });
    }
    const missing = await get(`/api/runs/${randomUUID()}/artifacts`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: 'Workflow run not found', code: 'RUN_NOT_FOUND' });
  });
});

describe('GET /api/artifacts/{runId}/{path}', () => {
  it('serves a file with its content type, and a symlink that stays inside the folder', async () => {
    const md = await get(`/api/artifacts/${runId}/summary.md`);
    expect(md.statusCode).toBe(200);
    expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(md.headers['x-content-type-options']).toBe('nosniff');
    expect(md.body).toBe('# Done\n');
    const json = await get(`/api/artifacts/${runId}/reports/b.json`);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.json()).toEqual({ ok: true });
    expect((await get(`/api/artifacts/${runId}/reports/deep/a.txt`)).body).toBe('deep');
    expect((await get(`/api/artifacts/${runId}/link-in.md`)).body).toBe('# Done\n');
  });

  it('answers 400 Invalid artifact path for every escape attempt', async () => {
    for (const path of ['../../../secret.txt', 'reports/../../../secret.txt', './summary.md', '/etc/passwd']) {
      const res = await rawGet(`/api/artifacts/${runId}/${path}`);
      expect(res, path).toEqual({ status: 400, body: { error: 'Invalid artifact path', code: 'VALIDATION_FAILED' } });
    }
    const attempts = [
      '..%2F..%2Fsecret.txt',
      '%2e%2e/%2e%2e/secret.txt',
      '%252e%252e/secret.txt',
      '%2Fetc%2Fpasswd',
      'reports/..%5C..%5Csecret.txt',
      'link-out.txt',
      '.hidden',
      '.cairn/node-outputs/x.out',
      'reports//b.json',
      'x%00y',
    ];
    for (const path of attempts) {
      expect(await rawGet(`/api/artifacts/${runId}/${path}`), path).toEqual({
        status: 400,
        body: { error: 'Invalid artifact path', code: 'VALIDATION_FAILED' },
      });
    }
    expect((await get(`/api/artifacts/bad!id/summary.md`)).json()).toMatchObject({ error: 'Invalid run id' });
  });

  it('answers 404 for an unknown run or file', async () => {
    expect((await get(`/api/artifacts/${randomUUID()}/summary.md`)).statusCode).toBe(404);
    const missing = await get(`/api/artifacts/${runId}/nope.txt`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'NOT_FOUND', error: 'Artifact not found: nope.txt' });
    expect((await get(`/api/artifacts/${runId}/reports`)).statusCode).toBe(404);
  });
});
