import { once } from 'node:events';
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listen, makeTestApp } from '../helpers/app.js';
import { openSse } from '../helpers/sse.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';
import { runEvent, seedRun } from './fixtures.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

describe('GET /api/stream/__dashboard__', () => {
  it('opens with a heartbeat data frame, then delivers events written by another connection as they commit', async () => {
    const { app, store, writer } = await makeTestApp(home);
    const url = await listen(app);
    const run = await seedRun(store, { workflowName: 'deploy' });

    const res = await fetch(`${url}/api/stream/__dashboard__`);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await res.body?.cancel();

    const stream = await openSse(`${url}/api/stream/__dashboard__`);
    await stream.until((f) => f.length >= 1);
    // Its position: the newest event when it opened (the run's workflow_queued), which it follows.
    expect(stream.frames[0]).toEqual({ id: undefined, data: { type: 'heartbeat', timestamp: expect.any(Number), position: await store.lastEventSeq() } });

    const written = await writer.appendEvents([
      runEvent(run, 'workflow_started'),
      runEvent(run, 'node_started', 'build'),
      runEvent(run, 'node_completed', 'build', { duration_ms: 120, node_output: 'ok' }),
      runEvent(run, 'node_failed', 'test', { error: 'exit 1', duration_ms: 30 }),
      runEvent(run, 'node_skipped', 'ship', { reason: 'trigger_rule' }),
      runEvent(run, 'approval_requested', 'gate', { message: 'go?' }),
      runEvent(run, 'workflow_failed', null, { error: 'DAG failed' }),
    ]);
    await stream.until((f) => f.length >= 8);
    const frames = stream.frames.slice(1);
    expect(frames.map((f) => f.id)).toEqual(written.map((e) => e.seq));
    const base = (i: number) => ({
      runId: run.id,
      conversationId: run.conversation_id,
      seq: written[i]!.seq,
      timestamp: Date.parse(written[i]!.created_at),
    });
    expect(frames.map((f) => f.data)).toEqual([
      { type: 'workflow_status', ...base(0), eventType: 'workflow_started', status: 'running', workflowName: 'deploy' },
      { type: 'dag_node', ...base(1), eventType: 'node_started', nodeId: 'build', name: 'build', status: 'running' },
      {
        type: 'dag_node', ...base(2), eventType: 'node_completed', nodeId: 'build', name: 'build', status: 'completed', duration: 120,
      },
      {
        type: 'dag_node', ...base(3), eventType: 'node_failed', nodeId: 'test', name: 'test', status: 'failed', duration: 30, error: 'exit 1',
      },
      { type: 'dag_node', ...base(4), eventType: 'node_skipped', nodeId: 'ship', name: 'ship', status: 'skipped', reason: 'trigger_rule' },
      { type: 'workflow_event', ...base(5), eventType: 'approval_requested', stepName: 'gate', data: { message: 'go?' } },
      {
        type: 'workflow_status', ...base(6), eventType: 'workflow_failed', status: 'failed', workflowName: 'deploy', error: 'DAG failed',
      },
    ]);
    stream.close();
  });

  it('carries every conversation’s events, while a conversation stream carries only its own', async () => {
    const { app, store, writer } = await makeTestApp(home);
    const url = await listen(app);
    const mine = await seedRun(store, { conversationId: 'conv-mine' });
    const theirs = await seedRun(store, { conversationId: 'conv-theirs' });
    const dashboard = await openSse(`${url}/api/stream/__dashboard__`);
    const conversation = await openSse(`${url}/api/stream/conv-mine`);
    await dashboard.until((f) => f.length >= 1);
    await conversation.until((f) => f.length >= 1);

    await writer.appendEvents([
      runEvent(mine, 'node_started', 'a'),
      runEvent(theirs, 'node_started', 'b'),
      runEvent(mine, 'node_completed', 'a'),
      runEvent(theirs, 'node_completed', 'b'),
    ]);
    await dashboard.until((f) => f.length >= 5);
    // The dashboard saw the last write, so the conversation stream has had every chance to.
    await conversation.until((f) => f.some((frame) => frame.data.eventType === 'node_completed'));
    expect(conversation.frames.slice(1).map((f) => [f.data.conversationId, f.data.nodeId, f.data.status])).toEqual([
      ['conv-mine', 'a', 'running'],
      ['conv-mine', 'a', 'completed'],
    ]);
    expect(dashboard.frames.slice(1).map((f) => f.data.nodeId)).toEqual(['a', 'b', 'a', 'b']);
    dashboard.close();
    conversation.close();
  });

  it('sends a heartbeat comment on the configured interval', async () => {
    const { app } = await makeTestApp(home, { sse: { heartbeatMs: 25 } });
    const url = await listen(app);
    const abort = new AbortController();
    const res = await fetch(`${url}/api/stream/__dashboard__`, { signal: abort.signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes(': heartbeat\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toMatch(/^retry: 250\ndata: \{"type":"heartbeat","timestamp":\d+,"position":\d+\}\n\n/);
    expect(text).toContain(': heartbeat\n\n');
    abort.abort();
  });

  it('ends open streams when the server closes', async () => {
    const { app } = await makeTestApp(home);
    const url = await listen(app);
    const dashboard = await openSse(`${url}/api/stream/__dashboard__`);
    const conversation = await openSse(`${url}/api/stream/conv-1`);
    await dashboard.until((f) => f.length >= 1);
    await conversation.until((f) => f.length >= 1);
    await app.close();
    await Promise.all([dashboard.ended, conversation.ended]);
  });

  it('closes at once with a connection open that never sent a request (a browser preconnects; undici opens one after an abort)', async () => {
    const { app } = await makeTestApp(home);
    const url = new URL(await listen(app));
    const idle = connect(Number(url.port), url.hostname);
    await once(idle, 'connect');
    const cut = once(idle, 'close');
    // Without the server ending that socket, close() waits for the client, which never gives up here.
    await app.close();
    await cut;
  });

  it('refuses a Last-Event-ID that is not a sequence number', async () => {
    const { app } = await makeTestApp(home);
    const bad = await app.inject({ url: '/api/stream/__dashboard__', headers: { 'last-event-id': 'abc' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/^Last-Event-ID must be a non-negative integer/);
    const badQuery = await app.inject({ url: '/api/stream/conv-1?lastEventId=-4' });
    expect(badQuery.statusCode).toBe(400);
    expect(badQuery.json().error).toMatch(/^lastEventId must be a non-negative integer/);
    const badId = await app.inject({ url: '/api/stream/bad%20id' });
    expect(badId.statusCode).toBe(400);
    expect(badId.json().error).toBe('Invalid conversation ID');
  });

  it('delivers an event once to each of many open streams', async () => {
    const { app, store, writer } = await makeTestApp(home);
    const url = await listen(app);
    const run = await seedRun(store);
    const streams = await Promise.all(Array.from({ length: 20 }, () => openSse(`${url}/api/stream/__dashboard__`)));
    await Promise.all(streams.map((s) => s.until((f) => f.length >= 1)));
    const [event] = await writer.appendEvents([runEvent(run, 'node_started', 'a')]);
    await Promise.all(streams.map((s) => s.until((f) => f.some((frame) => frame.id === event!.seq))));
    await waitFor(() => streams.every((s) => s.frames.length === 2), { what: 'one frame per stream' });
    streams.forEach((s) => s.close());
  });
});
