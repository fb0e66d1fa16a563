import { useState } from 'preact/hooks';
import { getJson, sendJson } from '../api.js';
import { ago, shortId } from '../format.js';
import { useLiveRead } from '../live-read.js';
import { HookForm } from '../webhooks/hook-form.js';
import { hookPath, signatureHeaders, type Hook, type HookDeliveryPage } from '../webhooks/types.js';

/** How many of a hook's latest deliveries the page shows. */
const DELIVERIES_SHOWN = 10;

type HookWithDeliveries = Hook & HookDeliveryPage;

/**
 * Every hook with its latest deliveries, in one answer (`/api/hooks?deliveries=N`): read hook by
 * hook, a hook removed between the list and its deliveries was a 404 the browser logs.
 */
async function loadHooks(): Promise<HookWithDeliveries[]> {
  const { hooks } = await getJson<{ hooks: (Hook & { deliveries: HookDeliveryPage })[] }>(`/api/hooks?deliveries=${DELIVERIES_SHOWN}`);
  return hooks.map(({ deliveries, ...hook }) => ({ ...hook, ...deliveries }));
}

/**
 * `/hooks`: every webhook (`/api/hooks`), by name: the workflow it runs (and codebase), how its
 * sender signs, which payload path feeds each input, when it was made, and its latest deliveries
 * (`/api/hooks?deliveries=10`), newest first, each with the run it started and when it was
 * received. The secret is never shown: no answer holds it. Remove asks first; under the list,
 * the form that adds one (hook-form.tsx). Read again when a
 * run is queued or changes status on the stream (a delivery queues a run), and after a removal.
 */
export function HooksPage() {
  const [hooks, setHooks] = useState<HookWithDeliveries[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [results, setResults] = useState<Record<string, string>>({});
  const [version, setVersion] = useState(0);
  useLiveRead(
    {
      load: loadHooks,
      show: setHooks,
      showError: setError,
      onFrame: (frame, reread) => {
        if (frame.type === 'workflow_status' || (frame.type === 'workflow_event' && frame.eventType === 'workflow_queued')) reread();
      },
    },
    [version],
  );

  async function remove(hook: Hook) {
    if (!window.confirm(`Remove the webhook ${hook.name} and its record of deliveries (its runs stay)? Its sender's deliveries are refused from then on.`)) return;
    try {
      await sendJson('DELETE', hookPath(hook.name));
    } catch (err) {
      setResults((r) => ({ ...r, [hook.name]: (err as Error).message }));
    }
    setVersion((v) => v + 1);
  }

  const list = hooks ?? [];
  return (
    <main class="page hooks-page">
      <h2>Webhooks</h2>
      {error ? <p class="error-text">{error}</p> : null}
      {hooks && list.length === 0 ? (
        <p class="muted">No webhook yet: add one below, with cairn hooks add or with POST /api/hooks (docs/webhooks.md).</p>
      ) : null}
      <ul class="schedules hooks">
        {list.map((hook) => {
          const mapping = Object.entries(hook.inputs);
          return (
            <li key={hook.id} data-hook={hook.name}>
              <p>
                <strong class="hook-name">{hook.name}</strong> runs <a href={`/workflows/${encodeURIComponent(hook.workflow_name)}`}>{hook.workflow_name}</a>
                {hook.codebase_id ? (
                  <>
                    {' '}
                    on <code>{hook.codebase_id}</code>
                  </>
                ) : null}{' '}
                · <span data-signature={hook.signature}>{hook.signature} signature</span> <span class="muted">({signatureHeaders[hook.signature]})</span>
              </p>
              <p class="muted">
                Deliveries to <code>POST {hookPath(hook.name)}</code> · made{' '}
                <time dateTime={hook.created_at} title={hook.created_at}>
                  {ago(hook.created_at)}
                </time>
              </p>
              <p class="hook-inputs">
                {mapping.length === 0 ? (
                  <span class="muted">No input is read from the payload: the workflow's defaults apply.</span>
                ) : (
                  <>
                    Inputs:{' '}
                    {mapping.map(([input, path], i) => (
                      <span key={input} data-mapping={input}>
                        {i > 0 ? ', ' : ''}
                        <code>{input}</code> ← <code>{path}</code>
                      </span>
                    ))}
                  </>
                )}
              </p>
              {hook.github ? (
                <p class="hook-github" data-github>
                  GitHub: <code>/cairn run</code> {[hook.workflow_name, ...hook.github.workflows].join(', ')}
                  {hook.github.labels.length > 0 ? ` · labels ${hook.github.labels.join(', ')}` : ''}
                  {hook.github.on_issue_opened ? ' · new issues' : ''}
                  {hook.github.deny_reply ? ' · one reply to people without write access' : ' · no reply to people without write access'}
                </p>
              ) : null}
              {hook.deliveries.length > 0 ? (
                <>
                  <p class="muted">
                    {hook.total > hook.deliveries.length ? `Latest ${hook.deliveries.length} of ${hook.total} deliveries:` : `${hook.total} ${hook.total === 1 ? 'delivery' : 'deliveries'}:`}
                  </p>
                  <ul class="fires deliveries">
                    {hook.deliveries.map((delivery) => (
                      <li key={delivery.delivery_id} data-delivery={delivery.delivery_id}>
                        <code class="delivery-id">{delivery.delivery_id}</code> received{' '}
                        <time dateTime={delivery.received_at} title={delivery.received_at}>
                          {ago(delivery.received_at)}
                        </time>{' '}
                        {delivery.run_id !== null ? (
                          <>
                            · run <a href={`/runs/${encodeURIComponent(delivery.run_id)}`}>{shortId(delivery.run_id)}</a>
                          </>
                        ) : (
                          <span class="muted"> · ignored: {delivery.ignored}</span>
                        )}
                      </li>
                    ))}
                  </ul>
                </>
              ) : (
                <p class="muted">No delivery yet.</p>
              )}
              <div class="schedule-actions">
                <button type="button" class="btn btn-delete" data-action="remove" onClick={() => void remove(hook)}>
                  Remove
                </button>
              </div>
              {results[hook.name] ? <p class="result error">{results[hook.name]}</p> : null}
            </li>
          );
        })}
      </ul>
      <HookForm onCreated={() => setVersion((v) => v + 1)} />
    </main>
  );
}
