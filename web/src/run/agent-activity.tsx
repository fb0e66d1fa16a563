import { duration } from '../format.js';
import type { ActivityItem, ToolItem } from './activity.js';
import { AgentText } from './agent-text.js';

/**
 * The agent's activity in the node panel, as it happens: its text as markdown, its thinking
 * folded away, and each tool call with its summary, its input, and its result or error once it
 * came. A call still waiting for its result says so.
 */
export function AgentActivity(props: { items: ActivityItem[]; nodeId: string }) {
  const { items, nodeId } = props;
  if (items.length === 0) return null;
  return (
    <>
      <h4>Agent activity</h4>
      <ol class="activity" aria-label="Agent activity">
        {items.map((item, i) => (
          <li key={i} class={`activity-${item.kind}`}>
            {item.path !== nodeId ? <span class="label">{item.path}</span> : null}
            {item.kind === 'text' ? <AgentText text={item.text} class="agent-text" /> : null}
            {item.kind === 'thinking' ? (
              <details>
                <summary class="muted">Thinking</summary>
                <pre class="thinking">{item.text}</pre>
              </details>
            ) : null}
            {item.kind === 'tool' ? <ToolCall call={item} /> : null}
            {item.kind === 'notice' ? <p class="muted">{item.text}</p> : null}
            {item.kind !== 'tool' && item.kind !== 'notice' && item.cut ? (
              <p class="muted">Cut here: the rest is in the attempt's activity file in the run's artifacts.</p>
            ) : null}
          </li>
        ))}
      </ol>
    </>
  );
}

/** A tool's input as the event carries it (JSON text, maybe cut): indented when it parses. */
function inputText(input: string): string {
  try {
    return JSON.stringify(JSON.parse(input), null, 2);
  } catch {
    return input;
  }
}

function ToolCall(props: { call: ToolItem }) {
  const { call } = props;
  const outcome = call.output === undefined ? 'running' : call.refused ? 'refused' : call.isError ? 'error' : 'ok';
  return (
    <details class={`tool-call tool-${outcome}`} data-tool={call.tool}>
      <summary>
        <span class="tool-name">{call.tool}</span> <span class="tool-summary">{call.summary}</span>{' '}
        <span class={`tool-outcome outcome-${outcome}`}>
          {outcome === 'running' ? 'waiting for its result…' : outcome}
          {call.durationMs !== undefined ? ` · ${duration(call.durationMs)}` : ''}
        </span>
      </summary>
      {call.input ? (
        <>
          <span class="label">Input</span>
          <pre class="tool-input">{inputText(call.input)}</pre>
        </>
      ) : null}
      {call.output !== undefined ? (
        <>
          <span class="label">{outcome === 'ok' ? 'Result' : 'Error'}</span>
          <pre class={outcome === 'ok' ? 'tool-output' : 'tool-output error-text'}>{call.output}</pre>
        </>
      ) : null}
    </details>
  );
}
