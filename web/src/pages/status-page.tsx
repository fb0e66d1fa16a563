import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { ago } from '../format.js';
import { onFrame } from '../live-stream.js';
import type { Health } from '../types.js';

/** The supervisor reports its figures in a heartbeat (no event): read again this often while the page is open. */
const HEARTBEAT_READ_MS = 5_000;
/** A node starting or ending shows in the figures at the supervisor's next heartbeat (each second). */
const AFTER_HEARTBEAT_MS = 1_300;

/**
 * `/status`: the server's health (`GET /api/health`): the supervisor, the global and per-provider
 * concurrency (active, queued, limit) and the open streams. Read again when a node starts or ends
 * on the stream (at most every 300 ms, and once more after the supervisor's next heartbeat), and
 * every few seconds, since the heartbeat itself is not an event.
 */
export function StatusPage() {
  const [health, setHealth] = useState<Health | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    let live = true;
    let pending: ReturnType<typeof setTimeout> | undefined;
    const read = () => {
      getJson<Health>('/api/health')
        .then((answer) => live && (setHealth(answer), setError(undefined)))
        .catch((err: Error) => live && setError(err.message));
    };
    read();
    let after: ReturnType<typeof setTimeout> | undefined;
    const stopFrames = onFrame((frame) => {
      if (frame.type !== 'dag_node' && frame.type !== 'workflow_status') return;
      pending ??= setTimeout(() => {
        pending = undefined;
        read();
      }, 300);
      // The supervisor's figures follow at its next heartbeat (every second): read once more then.
      if (after) clearTimeout(after);
      after = setTimeout(read, AFTER_HEARTBEAT_MS);
    });
    const timer = setInterval(read, HEARTBEAT_READ_MS);
    return () => {
      live = false;
      stopFrames();
      clearInterval(timer);
      if (pending) clearTimeout(pending);
      if (after) clearTimeout(after);
    };
  }, []);

  if (!health) return <main class="page">{error ? <p class="error-text">{error}</p> : <p class="muted">Loading…</p>}</main>;
  const c = health.concurrency;
  const providers = Object.entries(c.perProvider);
  return (
    <main class="page status-page">
      <h2>Health</h2>
      {error ? <p class="error-text">{error}</p> : null}
      <section class="cards">
        <div class="card" data-card="supervisor">
          <h3>Supervisor</h3>
          <p class={c.supervisor.up ? 'big ok' : 'big error-text'}>{c.supervisor.up ? 'up' : 'down'}</p>
          <p class="muted">
            {c.supervisor.state}
            {c.supervisor.pid ? ` · pid ${c.supervisor.pid}` : ''}
            {c.supervisor.heartbeatAt ? ` · heartbeat ${ago(c.supervisor.heartbeatAt)}` : ''}
          </p>
        </div>
        <div class="card" data-card="global">
          <h3>Node attempts</h3>
          <p class="big">
            <span data-figure="active">{c.active}</span> / {c.limit}
          </p>
          <p class="muted">
            active / limit · <span data-figure="queued">{c.queued}</span> queued · {c.perRunLimit} per run at most
          </p>
        </div>
        <div class="card" data-card="runs">
          <h3>Runs</h3>
          <p class="big" data-figure="running">{health.runningWorkflows}</p>
          <p class="muted">running · {c.runs} driven by the supervisor</p>
        </div>
        <div class="card" data-card="streams">
          <h3>Live streams</h3>
          <p class="big">
            {health.streams.open} / {health.streams.max}
          </p>
          <p class="muted">open / limit · {c.queuedTotal} chat turns queued</p>
        </div>
      </section>
      <h3>Per provider</h3>
      {providers.length === 0 ? (
        <p class="muted">No AI provider has been used since the supervisor started.</p>
      ) : (
        <table class="providers">
          <thead>
            <tr>
              <th>Provider</th>
              <th>Active</th>
              <th>Queued</th>
              <th>Limit</th>
            </tr>
          </thead>
          <tbody>
            {providers.map(([name, p]) => (
              <tr key={name} data-provider={name}>
                <td>{name}</td>
                <td>{p.active}</td>
                <td>{p.queued}</td>
                <td>{p.limit ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="muted">Cairn {health.version}</p>
    </main>
  );
}
