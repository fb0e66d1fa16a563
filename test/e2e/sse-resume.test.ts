import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { openSse, type SseFrame } from '../helpers/sse.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { fanOutYaml, getRun, startRun, writeHomeWorkflow } from '../helpers/workflows.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const ids = (frames: SseFrame[], runId: string) =>
  frames.filter((f) => f.id !== undefined && f.data.runId === runId).map((f) => f.id!);
const finished = (frames: SseFrame[]) =>
  frames.some((f) => f.data.type === 'workflow_status' && ['completed', 'failed'].includes(f.data.status));

it('a dashboard client that drops and reconnects with Last-Event-ID misses nothing and sees nothing twice, even across an API crash', async () => {
  const server = await startServer(home, { CAIRN_MAX_CONCURRENCY: '2' });
  await writeHomeWorkflow(home, 'steady', fanOutYaml('steady', 40, 'sleep 0.1'));
  const stream = `${server.url}/api/stream/__dashboard__`;

  const first = await openSse(stream);
  const { runId } = await startRun(server.url, 'steady');
  await first.until((f) => ids(f, runId).length >= 5);
  first.close();
  const seen = ids(first.frames, runId);

  // Kill the API process while the run goes on; the launcher restarts it.
  const apiPid = await server.pid('api');
  process.kill(apiPid, 'SIGKILL');
  await waitFor(async () => (await server.pid('api')) !== apiPid && (await fetch(`${server.url}/health`).then((r) => r.ok, () => false)), {
    what: 'the API to come back',
  });

  const second = await openSse(stream, { lastEventId: seen[seen.length - 1]! });
  await second.until(finished, 45_000);
  second.close();
  const resumed = ids(second.frames, runId);

  const { events } = await getRun(server.url, runId);
  const all = events.map((e) => e.seq as number);
  expect([...seen, ...resumed]).toEqual(all);
});

it('a conversation stream carries only its own runs', async () => {
  const server = await startServer(home);
  await writeHomeWorkflow(home, 'tiny', fanOutYaml('tiny', 2, 'true'));
  const mine = await openSse(`${server.url}/api/stream/conv-mine`);
  const other = await startRun(server.url, 'tiny', { conversationId: 'conv-other' });
  const own = await startRun(server.url, 'tiny', { conversationId: 'conv-mine' });
  await mine.until(finished);
  await waitFor(async () => (await getRun(server.url, other.runId)).run.status === 'completed');
  mine.close();
  const runIds = new Set(mine.frames.filter((f) => f.id !== undefined).map((f) => f.data.runId));
  expect([...runIds]).toEqual([own.runId]);
});
