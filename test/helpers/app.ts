import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildServer, type ApiDeps } from '../../src/api/server.js';
import { loadSettings, type Settings } from '../../src/shared/config.js';
import type { Store } from '../../src/store/store.js';
import type { TempHome } from './temp-home.js';
import { versionOnlyCliEnv } from './version-only-clis.js';

export interface TestApp {
  app: FastifyInstance;
  /** The API's own connection. */
  store: Store;
  /** A second connection, for playing the supervisor (acquireRun, transitionRun, appendEvents). */
  writer: Store;
  settings: Settings;
}

/** An API server over the temp home's real database; closed (before the store) by `home.close()`. */
export async function makeTestApp(home: TempHome, overrides: Partial<ApiDeps> = {}): Promise<TestApp> {
  const store = home.openStore();
  const writer = home.openStore();
  const settings = loadSettings({ CAIRN_HOME: home.home });
  // The test's environment, but with provider CLIs that only answer --version, in a folder of their
  // own: a walk over every route (the fuzzer, the CORS check) asks the doctor route many times.
  const clis = await mkdtemp(join(tmpdir(), 'cairn-clis-'));
  home.defer(() => rm(clis, { recursive: true, force: true }));
  const env = { ...process.env, ...(await versionOnlyCliEnv(clis)) };
  const app = await buildServer({ store, settings, env, ...overrides });
  home.defer(() => app.close());
  return { app, store, writer, settings };
}

/** Listens on a free loopback port and returns the base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('server has no TCP address');
  return `http://127.0.0.1:${address.port}`;
}
