import { useEffect, useState } from 'preact/hooks';
import { getJson, sendJson } from '../api.js';
import { userHeaders } from './identity.js';
import type { AuthProviders } from './types.js';
import { SUBSCRIPTION_VENDORS, SubscriptionLogin } from './subscription-login.js';

type Result = { ok: boolean; message: string } | undefined;

/**
 * The user's provider credentials (`/api/auth/providers`): per vendor, whether a key of theirs
 * is connected (its label only: no route ever answers a key), whether the server's environment
 * has one, and a field to connect a key or a button to remove it. The key typed is sent once
 * (`PUT`), then the field is emptied; the page never holds it after that. A vendor with
 * subscription logins also offers one (subscription-login.tsx).
 */
export function Credentials(props: { readKey: string }) {
  const [state, setState] = useState<AuthProviders | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [keys, setKeys] = useState<Record<string, string>>({});
  const [labels, setLabels] = useState<Record<string, string>>({});
  const [result, setResult] = useState<Result>(undefined);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    let live = true;
    getJson<AuthProviders>('/api/auth/providers', undefined, userHeaders())
      .then((answer) => live && (setState(answer), setError(undefined)))
      .catch((err: Error) => live && setError(err.message));
    return () => {
      live = false;
    };
  }, [version, props.readKey]);

  if (error) return <p class="error-text">{error}</p>;
  if (!state) return <p class="muted">Loading…</p>;
  const connection = (vendor: string) => state.connections.find((c) => c.provider === vendor);
  const envKey = (vendor: string) => state.agents.some((a) => a.credentials.some((c) => c.vendor === vendor && c.installEnv));
  const connect = async (vendor: string) => {
    const apiKey = keys[vendor]?.trim() ?? '';
    setResult(undefined);
    try {
      const answer = await sendJson<{ provider: string; label: string }>(
        'PUT',
        `/api/auth/providers/${encodeURIComponent(vendor)}`,
        { apiKey, ...(labels[vendor]?.trim() ? { label: labels[vendor]!.trim() } : {}) },
        userHeaders(),
      );
      setResult({ ok: true, message: `Connected ${answer.label} for ${answer.provider}.` });
      setKeys((k) => ({ ...k, [vendor]: '' }));
      setLabels((l) => ({ ...l, [vendor]: '' }));
    } catch (err) {
      setResult({ ok: false, message: (err as Error).message });
    }
    setVersion((v) => v + 1);
  };
  const remove = async (vendor: string) => {
    setResult(undefined);
    try {
      await sendJson('DELETE', `/api/auth/providers/${encodeURIComponent(vendor)}`, undefined, userHeaders());
      setResult({ ok: true, message: `Removed the key for ${vendor}.` });
    } catch (err) {
      setResult({ ok: false, message: (err as Error).message });
    }
    setVersion((v) => v + 1);
  };

  return (
    <div class="credentials">
      {!state.enabled ? <p class="warning">Keys cannot be stored: the install key is not available (see docs/providers.md).</p> : null}
      <table class="settings-table">
        <tbody>
          {state.available.map((vendor) => {
            const c = connection(vendor);
            return (
              <tr key={vendor} data-vendor={vendor}>
                <th>{vendor}</th>
                <td data-connection>
                  {c ? (
                    <>
                      connected: <strong>{c.label}</strong> ({c.kind === 'api_key' ? 'API key' : 'subscription'})
                    </>
                  ) : (
                    <span class="muted">not connected</span>
                  )}
                  {envKey(vendor) ? <span class="muted"> · the server’s environment has a key</span> : null}
                </td>
                <td>
                  <form
                    class="inline-form"
                    onSubmit={(e) => {
                      e.preventDefault();
                      void connect(vendor);
                    }}
                  >
                    <input
                      type="password"
                      name={`key-${vendor}`}
                      aria-label={`${vendor} API key`}
                      autocomplete="off"
                      placeholder={c ? 'replace the key' : 'API key'}
                      value={keys[vendor] ?? ''}
                      onInput={(e) => setKeys((k) => ({ ...k, [vendor]: (e.target as HTMLInputElement).value }))}
                    />
                    <input
                      type="text"
                      name={`label-${vendor}`}
                      aria-label={`${vendor} key label`}
                      placeholder="label (optional)"
                      value={labels[vendor] ?? ''}
                      onInput={(e) => setLabels((l) => ({ ...l, [vendor]: (e.target as HTMLInputElement).value }))}
                    />
                    <button type="submit" class="btn btn-small" data-action="connect" disabled={!(keys[vendor] ?? '').trim()}>
                      Connect
                    </button>
                    {c ? (
                      <button type="button" class="btn btn-small btn-delete" data-action="disconnect" onClick={() => void remove(vendor)}>
                        Remove
                      </button>
                    ) : null}
                  </form>
                  {SUBSCRIPTION_VENDORS.includes(vendor) ? (
                    <SubscriptionLogin
                      vendor={vendor}
                      onDone={(message) => {
                        setResult(message);
                        setVersion((v) => v + 1);
                      }}
                    />
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {result ? (
        <p class={result.ok ? 'result ok' : 'result error'} data-credential-result>
          {result.message}
        </p>
      ) : null}
    </div>
  );
}
