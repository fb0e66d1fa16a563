import { useEffect, useState } from 'preact/hooks';
import { getJson, withQuery } from '../api.js';
import { stateLabel } from '../dag/dag-view.js';
import { duration } from '../format.js';
import { hrefWith } from '../router.js';
import type { AttemptLog } from '../types.js';
import type { ActivityItem } from './activity.js';
import { AgentActivity } from './agent-activity.js';
import { LogStream } from './log-stream.js';
import type { NodeView } from './node-states.js';
import { spendOfRecord, spendText } from './spend.js';

/**
 * The selected node: its state, each attempt (state, duration, tokens and cost, error, output,
 * its execution record, a link to what it changed), the agent's activity as it happens, and
 * what its finished attempts printed (`GET …/logs?node=`), read again whenever an attempt ends; a
 * long stream is read a chunk at a time as it is scrolled (log-stream.tsx).
 */
export function NodePanel(props: { runId: string; node: NodeView; activity: ActivityItem[]; hasWorktree: boolean }) {
  const { node, runId } = props;
  const [logs, setLogs] = useState<AttemptLog[] | undefined>(undefined);
  const [logError, setLogError] = useState<string | undefined>(undefined);
  const ended = node.attempts.filter((a) => a.endedAt !== undefined).length;

  useEffect(() => {
    let live = true;
    getJson<{ attempts: AttemptLog[] }>(withQuery(`/api/workflows/runs/${encodeURIComponent(runId)}/logs`, { node: node.id, limit: 50 }))
      .then((answer) => live && (setLogs(answer.attempts), setLogError(undefined)))
      .catch((err: Error) => live && setLogError(err.message));
    return () => {
      live = false;
    };
  }, [runId, node.id, ended]);

  return (
    <aside class="node-panel" aria-label={`Node ${node.id}`} data-panel-node={node.id}>
      <h3>
        {node.id} <span class={`badge state-${node.state}`}>{stateLabel[node.state]}</span>
      </h3>
      {node.note ? <p class="note">{node.note}</p> : null}
      <AgentActivity items={props.activity} nodeId={node.id} />
      <h4>Attempts</h4>
      {node.attempts.length === 0 ? <p class="muted">No attempt yet.</p> : null}
      <ol class="attempts">
        {node.attempts.map((attempt, i) => (
          <li key={i} class={`state-${attempt.state}`}>
            <span class="attempt-head">
              {attempt.path !== node.id ? `${attempt.path} · ` : ''}
              {attempt.state}
              {attempt.durationMs !== undefined ? ` · ${duration(attempt.durationMs)}` : ''}
            </span>
            <AttemptSpend record={attempt.record} />
            {attempt.error ? <pre class="error-text">{attempt.error}</pre> : null}
            {attempt.reason ? <p class="muted">{attempt.reason}</p> : null}
            {attempt.output !== undefined ? (
              <>
                <span class="label">Output</span>
                <pre class="output">{attempt.output}</pre>
              </>
            ) : null}
            {props.hasWorktree && attempt.attemptId && attempt.endedAt ? (
              <a class="attempt-changes" href={hrefWith({ tab: 'changes', attempt: attempt.attemptId })}>
                What this attempt changed
              </a>
            ) : null}
            {attempt.record ? (
              <details class="record">
                <summary>Execution record</summary>
                <pre>{JSON.stringify(attempt.record, null, 2)}</pre>
              </details>
            ) : null}
          </li>
        ))}
      </ol>

      <h4>Logs</h4>
      {logError ? <p class="error-text">{logError}</p> : null}
      {logs && logs.length === 0 ? <p class="muted">No finished attempt printed anything yet.</p> : null}
      {logs?.map((log) => (
        <div class="log" key={log.seq}>
          <span class="label">
            {log.path} · {log.status}
          </span>
          <LogStream runId={runId} log={log} stream="stdout" />
          <LogStream runId={runId} log={log} stream="stderr" />
        </div>
      ))}
    </aside>
  );
}

/** Tokens and cost of one attempt, from its record; nothing when its record reports none. */
function AttemptSpend(props: { record: Record<string, unknown> | undefined }) {
  const spend = spendOfRecord(props.record);
  return spend ? <span class="spend">{spendText(spend)}</span> : null;
}
