import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/shared/log.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { cloneLocally, makeBareRemote } from './git-fixtures.js';

let home: TempHome;
let root: string;
let t: TestApp;
let lines: string[];

beforeEach(async () => {
  home = await makeTempHome();
  root = realpathSync(mkdtempSync(join(tmpdir(), 'cairn-git-')));
  home.defer(() => rmSync(root, { recursive: true, force: true }));
  lines = [];
  const log = createLogger({ name: 'api', level: 'debug', destination: { write: (line: string) => lines.push(line) } });
  t = await makeTestApp(home, { log });
});
afterEach(async () => {
  await home.close();
});

const inject = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url, ...(payload ? { payload } : {}) });

describe('codebase ids in URLs', () => {
  it('reads, lists environments of, and 404s a codebase by owner%2Frepo and by owner/repo', async () => {
    const url = makeBareRemote(root, 'acme', 'environments');
    expect((await inject('POST', '/api/codebases', { url })).statusCode).toBe(201);
    for (const path of ['/api/codebases/acme%2Fenvironments', '/api/codebases/acme/environments']) {
      const res = await inject('GET', path);
      expect(res.statusCode).toBe(200);
      expect(res.json().id).toBe('acme/environments');
    }
    for (const path of ['/api/codebases/acme%2Fenvironments/environments', '/api/codebases/acme/environments/environments']) {
      expect((await inject('GET', path)).json()).toEqual({ environments: [] });
    }
    const missing = await inject('GET', '/api/codebases/no/such');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'CODEBASE_NOT_FOUND' });
    expect(missing.json().error).toContain('no/such');
    expect((await inject('GET', '/api/codebases/no%2Fsuch/environments')).statusCode).toBe(404);
  });
});

describe('DELETE /api/codebases/{id}', () => {
  it('deletes a clone Cairn made from disk, and never a registered local checkout', async () => {
    const cloned = (await inject('POST', '/api/codebases', { url: makeBareRemote(root, 'acme', 'one') })).json();
    const local = cloneLocally(root, makeBareRemote(root, 'acme', 'two'), 'mine');
    expect((await inject('POST', '/api/codebases', { path: local })).statusCode).toBe(201);

    const gone = await inject('DELETE', '/api/codebases/acme%2Fone');
    expect(gone.json()).toEqual({ success: true, id: 'acme/one', removedPath: cloned.default_cwd });
    expect(existsSync(cloned.default_cwd)).toBe(false);
    expect(existsSync(join(home.home, 'workspaces', 'acme'))).toBe(false);

    const kept = await inject('DELETE', '/api/codebases/acme/two');
    expect(kept.json()).toEqual({ success: true, id: 'acme/two', removedPath: null });
    expect(existsSync(join(local, 'README.md'))).toBe(true);
    expect((await inject('GET', '/api/codebases')).json()).toEqual({ codebases: [] });
    expect((await inject('DELETE', '/api/codebases/acme/two')).statusCode).toBe(404);
  });

  it('removes the isolation-environment rows with the registration', async () => {
    const dir = join(root, 'plain');
    mkdirSync(dir);
    const { id } = (await inject('POST', '/api/codebases', { path: dir })).json();
    await t.writer.createIsolationEnvironment({
      id: 'env-1', codebase_id: id, workflow_type: 'task', workflow_id: 'w', provider: 'worktree',
      working_path: join(root, 'wt'), branch_name: 'b', created_by_platform: 'web', metadata: {},
    });
    const listed = (await inject('GET', `/api/codebases/${encodeURIComponent(id)}/environments`)).json();
    expect(listed.environments).toMatchObject([{ id: 'env-1', status: 'active', days_since_activity: 0 }]);
    expect((await inject('DELETE', `/api/codebases/${id}`)).statusCode).toBe(200);
    expect(await t.writer.listIsolationEnvironments(id)).toEqual([]);
    expect(existsSync(dir)).toBe(true);
  });
});

describe('the env-leak gate', () => {
  it('shows secret-looking key names, logs grant and revoke at warn, and never the value', async () => {
    const dir = cloneLocally(root, makeBareRemote(root, 'acme', 'leaky'), 'leaky');
    writeFileSync(join(dir, '.env'), 'API_KEY=supersecret\nPORT=3000\n');
    writeFileSync(join(dir, '.env.local'), 'export DB_PASSWORD="supersecret"\n# TOKEN=commented\n');
    const created = await inject('POST', '/api/codebases', { path: dir });
    expect(created.json()).toMatchObject({
      allow_env_keys: false,
      env_scan: { status: 'keys_found', files: ['.env', '.env.local'], keys: ['API_KEY', 'DB_PASSWORD'] },
    });

    const granted = await inject('PATCH', '/api/codebases/acme/leaky', { allowEnvKeys: true });
    expect(granted.json()).toMatchObject({ allow_env_keys: true });
    const revoked = await inject('PATCH', '/api/codebases/acme%2Fleaky', { allowEnvKeys: false });
    expect(revoked.json()).toMatchObject({ allow_env_keys: false });

    const audit = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg.startsWith('env_leak_consent_'));
    expect(audit).toMatchObject([
      { level: 40, msg: 'env_leak_consent_granted', codebaseId: 'acme/leaky', path: dir, scannedFiles: ['.env', '.env.local'], matchedKeys: ['API_KEY', 'DB_PASSWORD'], scanStatus: 'keys_found' },
      { level: 40, msg: 'env_leak_consent_revoked', codebaseId: 'acme/leaky' },
    ]);
    expect(audit[0].actor).toMatch(/^http:/);

    const answers = [created, granted, revoked, await inject('GET', '/api/codebases')].map((res) => res.body);
    for (const text of [...answers, ...lines]) expect(text).not.toContain('supersecret');
  });

  it('refuses a consent that is not a boolean, and an unknown codebase', async () => {
    const dir = join(root, 'plain');
    mkdirSync(dir);
    const { id } = (await inject('POST', '/api/codebases', { path: dir })).json();
    for (const body of [{ allowEnvKeys: 'yes' }, {}]) {
      const res = await inject('PATCH', `/api/codebases/${encodeURIComponent(id)}`, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toContain('allowEnvKeys must be a boolean');
    }
    expect((await inject('PATCH', '/api/codebases/no/such', { allowEnvKeys: true })).statusCode).toBe(404);
  });
});
