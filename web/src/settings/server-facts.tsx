import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import type { Health } from '../types.js';
import type { ProviderInfo } from './types.js';

/**
 * What the server says about itself over HTTP: its version and supervisor (`GET /api/health`)
 * and the AI providers a workflow may name (`GET /api/providers`). `cairn doctor`'s checks are
 * the settings page's next part (doctor-checks.tsx).
 */
export function ServerFacts(props: { providers: readonly ProviderInfo[] }) {
  const [health, setHealth] = useState<Health | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    getJson<Health>('/api/health')
      .then(setHealth)
      .catch((err: Error) => setError(err.message));
  }, []);
  return (
    <div class="server-facts">
      {error ? <p class="error-text">{error}</p> : null}
      {health ? (
        <p data-server>
          Cairn {health.version} · supervisor {health.concurrency.supervisor.up ? 'up' : 'down'} · {health.runningWorkflows} running ·{' '}
          <a href="/status">health</a>
        </p>
      ) : null}
      <table class="settings-table">
        <thead>
          <tr>
            <th>Provider</th>
            <th>Id</th>
            <th>Built in</th>
          </tr>
        </thead>
        <tbody>
          {props.providers.map((p) => (
            <tr key={p.id} data-provider={p.id}>
              <td>{p.displayName}</td>
              <td>
                <code>{p.id}</code>
              </td>
              <td>{p.builtIn ? 'yes' : 'no'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
