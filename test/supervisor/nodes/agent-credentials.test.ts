import { WorkflowCatalog } from '../../../src/workflow/catalog/catalog.js';
import { ChildRunSignals } from '../../../src/supervisor/children/child-signals.js';
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { sealCredential } from '../../../src/credentials/credential-seal.js';
import { loadSettings, type Settings } from '../../../src/shared/config.js';
import { createLogger } from '../../../src/shared/log.js';
import type { Run } from '../../../src/store/schemas/run.js';
import { sqliteStoreConfig, type Store } from '../../../src/store/open-store.js';
import { globalSlots } from '../../../src/supervisor/run/engine-slots.js';
import { createNodeKinds } from '../../../src/supervisor/nodes/node-kinds.js';
import { RUN_LEASE_MS } from '../../../src/supervisor/process/run-registry.js';
import { createSchedulerFactory, type SchedulerFactory } from '../../../src/supervisor/run/scheduler-factory.js';
import type { RunScheduler } from '../../../src/supervisor/run/scheduler.js';
import { createWorkerPool } from '../../../src/worker/pool/pool.js';
import { startAnthropicServer, type AnthropicServer, type MessagesReply } from '../../helpers/anthropic-server.js';
import { builtTaskFile } from '../../helpers/built-files.js';
import { oauthConfigYaml, startOAuthServer } from '../../helpers/oauth-server.js';
import { createRunRow } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * The run's user's connected credential in AI attempts, through the real scheduler factory, the
 * real Piscina pool (built task file), the real anthropic adapter and a local Messages API
 * server. The run row's user is given as the field the runs table records it in (`user_id`).
 */

const USER_KEY = 'sk-ant-user-RECOGNISABLE-7f3a9c';
const INSTALL_KEY = 'sk-ant-install-0000';

let home: TempHome;
let server: AnthropicServer;
let store: Store;
let settings: Settings;
let factory: SchedulerFactory;
let logs: string;

async function setUp(reply: (req: { body: any }, i: number) => MessagesReply): Promise<void> {
  server = await startAnthropicServer(reply);
  home.defer(() => server.close());
  settings = loadSettings({ CAIRN_HOME: home.home, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: INSTALL_KEY });
  store = home.openStore();
  const pool = createWorkerPool({ store, maxThreads: 2, concurrentTasksPerWorker: 2, filename: builtTaskFile });
  home.defer(() => pool.close());
  logs = '';
  const log = createLogger({ name: 'supervisor', level: 'debug', destination: { write: (line: string) => void (logs += line) } });
  const catalog = WorkflowCatalog.forHome(settings.home, { threadFile: null });
  factory = createSchedulerFactory({
    store, storeConfig: sqliteStoreConfig(home.paths.database), pool, limiter: globalSlots(4), settings, log, lockLeaseMs: RUN_LEASE_MS,
    kinds: createNodeKinds({ children: { lookup: (name, query) => catalog.getAsync(name, query), signals: new ChildRunSignals() } }),
  });
}

/** Creates, acquires and starts a run as the supervisor does, owned by `user`. */
async function startRun(yaml: string, user: string | null): Promise<{ run: Run; scheduler: RunScheduler }> {
  const created = await createRunRow(store, yaml);
  const acquired = (await store.acquireRun({ runId: created.id, ownerId: 'sup-test', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] }))!;
  const scheduler = await factory.fresh({ ...acquired, user_id: user } as Run);
  home.defer(() => scheduler.release(false));
  return { run: acquired, scheduler };
}

const ended = (runId: string) =>
  waitFor(async () => {
    const run = await store.getRun(runId);
    return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
  }, { what: `run ${runId} to end`, timeoutMs: 15_000 }).catch(async (err: Error) => {
    const events = await store.listRunEvents(runId);
    throw new Error(`${err.message}; status ${(await store.getRun(runId))?.status}; events ${events.map((e) => `${e.event_type}:${e.step_name}`).join(', ')}`);
  });

// The bash node runs after the AI node: two attempts of one run ending in the same tick can leave
// the scheduler without a pass (a race reported apart), which is not what this file tests.
const workflow = (name: string) => `name: ${name}
description: an AI node and a bash node
provider: anthropic
nodes:
  - id: ask
    prompt: hello
  - id: env
    depends_on: [ask]
    trigger_rule: all_done
    bash: env
`;

async function connectKey(user: string, secret = USER_KEY) {
  await store.putCredential(sealCredential(settings.installKey(), user, { vendor: 'anthropic', kind: 'api_key', label: 'k', secret }));
}

beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('calls the provider with the run user’s key, never hands it to bash, and records it nowhere (completed, failed, cancelled)', async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await setUp((req) =>
    req.body.messages[0].content === 'fail'
      ? { kind: 'error', status: 401, type: 'authentication_error', message: 'invalid x-api-key' }
      : req.body.messages[0].content === 'hold'
        ? { kind: 'stream', blocks: [{ type: 'text', text: 'late' }], heldUntil: held }
        : { kind: 'stream', blocks: [{ type: 'text', text: 'hi' }] });
  await connectKey('ann');

  const ok = await startRun(workflow('ok'), 'ann');
  expect((await ended(ok.run.id)).status).toBe('completed');
  const failing = await startRun(workflow('failing').replace('prompt: hello', 'prompt: fail'), 'ann');
  expect((await ended(failing.run.id)).status).toBe('failed');
  const cancelled = await startRun(workflow('cancelled').replace('prompt: hello', 'prompt: hold'), 'ann');
  await waitFor(() => server.requests.some((r) => r.body.messages[0].content === 'hold'), { what: 'the held call' });
  await cancelled.scheduler.cancel();
  expect((await ended(cancelled.run.id)).status).toBe('cancelled');
  release();

  expect(server.requests.map((r) => r.headers['x-api-key'])).toEqual([USER_KEY, USER_KEY, USER_KEY]);
  const events = [ok, failing, cancelled].map((r) => r.run.id);
  const rows = (await Promise.all(events.map((id) => store.listRunEvents(id)))).flat();
  const bashOutput = rows.find((e) => e.step_name === 'env' && e.event_type === 'node_completed')!.data as Record<string, unknown>;
  expect(String(bashOutput.node_output)).toContain('PATH=');
  expect(String(bashOutput.node_output)).not.toContain(USER_KEY);
  expect(JSON.stringify(rows)).not.toContain(USER_KEY);
  expect(JSON.stringify(await Promise.all(events.map((id) => store.getRun(id))))).not.toContain(USER_KEY);
  expect(logs).not.toContain(USER_KEY);
  expect(logs.length).toBeGreaterThan(0);
  const db = Buffer.concat([await readFile(home.paths.database), await readFile(`${home.paths.database}-wal`).catch(() => Buffer.alloc(0))]);
  expect(db.includes(USER_KEY)).toBe(false);
  expect(db.includes(Buffer.from(USER_KEY, 'utf16le'))).toBe(false);
});

it('uses the install’s key for a run without a user and for a user without a credential', async () => {
  await setUp(() => ({ kind: 'stream', blocks: [{ type: 'text', text: 'hi' }] }));
  await connectKey('ann');
  for (const user of [null, 'bob']) {
    const { run } = await startRun(workflow(`w-${user}`), user);
    expect((await ended(run.id)).status).toBe('completed');
  }
  expect(server.requests.map((r) => r.headers['x-api-key'])).toEqual([INSTALL_KEY, INSTALL_KEY]);
});

it('sends a subscription login’s token as a bearer token, refreshed first when it is about to expire', async () => {
  const auth = await startOAuthServer({ accessTokenTtl: 60 });
  home.defer(() => auth.close());
  await writeFile(home.paths.config, oauthConfigYaml(auth));
  await setUp(() => ({ kind: 'stream', blocks: [{ type: 'text', text: 'hi' }] }));
  // A login whose token has a minute left: its refresh token is the server's own.
  const device = await (await fetch(`${auth.url}/device/code`, { method: 'POST', body: new URLSearchParams({ client_id: 'cairn-test-client' }) })).json() as Record<string, string>;
  auth.approveDevice(device.user_code!);
  const tokens = await (await fetch(`${auth.url}/token`, {
    method: 'POST', body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: device.device_code!, client_id: 'cairn-test-client' }),
  })).json() as Record<string, string>;
  await store.putCredential(sealCredential(settings.installKey(), 'ann', {
    vendor: 'anthropic', kind: 'oauth', label: 'sub', secret: tokens.access_token!, refreshToken: tokens.refresh_token!, expiresAt: Date.now() + 60_000,
  }));
  const { run } = await startRun(workflow('oauth'), 'ann');
  const end = await ended(run.id);
  expect(end.status, JSON.stringify(await store.listRunEvents(run.id))).toBe('completed');
  const headers = server.requests[0]!.headers;
  expect(headers.authorization).toBe(`Bearer ${auth.issued[1]}`);
  expect(headers['x-api-key']).toBeUndefined();
  expect(headers['anthropic-beta']).toContain('oauth-2025-04-20');
  expect(auth.tokenRequests.at(-1)!.grant_type).toBe('refresh_token');
});

it('fails the AI node without a call when the user’s login expired and cannot be refreshed, saying to reconnect', async () => {
  await setUp(() => ({ kind: 'stream', blocks: [{ type: 'text', text: 'hi' }] }));
  await store.putCredential(sealCredential(settings.installKey(), 'ann', {
    vendor: 'anthropic', kind: 'oauth', label: 'sub', secret: 'expired-token', expiresAt: Date.now() - 1000,
  }));
  const { run } = await startRun(workflow('expired'), 'ann');
  expect((await ended(run.id)).status).toBe('failed');
  const failed = (await store.listRunEvents(run.id)).find((e) => e.event_type === 'node_failed' && e.step_name === 'ask')!;
  expect(String((failed.data as Record<string, unknown>).error)).toMatch(/anthropic subscription login has expired.*connect it again/);
  expect(server.requests).toEqual([]);
});
