import { useState } from 'preact/hooks';
import { sendJson } from '../api.js';
import { codebasePath, type Codebase } from './types.js';

/**
 * The env-leak gate of one codebase (docs/worktrees.md): what the scan of its `.env*` files
 * found (file and key names, never values) and whether its runs may load those keys. Allow and
 * Revoke are `PATCH /api/codebases/{id}` with `allowEnvKeys`; the server rescans and logs each.
 */
export function EnvKeys(props: { codebase: Codebase; onChanged(codebase: Codebase): void; asked?: boolean }) {
  const { codebase } = props;
  const scan = codebase.env_scan;
  const [error, setError] = useState<string | undefined>(undefined);
  const [declined, setDeclined] = useState(false);
  const consent = async (allowEnvKeys: boolean) => {
    setError(undefined);
    try {
      props.onChanged(await sendJson<Codebase>('PATCH', codebasePath(codebase.id), { allowEnvKeys }));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  if (scan.status === 'clean') return <span class="muted" data-env-keys="clean">no secret-looking keys{scan.files.length ? ` in ${scan.files.join(', ')}` : ''}</span>;
  if (scan.status === 'error') return <span class="warning" data-env-keys="error">the .env files could not be scanned</span>;
  const found = (
    <>
      {scan.keys.map((key) => (
        <code key={key} class="key-name">
          {key}
        </code>
      ))}{' '}
      in {scan.files.join(', ')}
    </>
  );
  if (props.asked && !codebase.allow_env_keys && !declined) {
    return (
      <div class="consent" data-consent={codebase.id} role="group" aria-label="Secret-looking keys">
        <p>
          <strong>{codebase.id}</strong> has secret-looking keys in its .env files: {found}.
        </p>
        <p class="muted">
          Cairn never puts them in a node’s environment, but some runtimes load .env files by themselves (bun does). Allow
          that for this codebase’s runs? Until you do, bun runs with --no-env-file.
        </p>
        <div class="action-row">
          <button type="button" class="btn btn-approve" data-action="allow-env" onClick={() => void consent(true)}>
            Allow them
          </button>
          <button type="button" class="btn" data-action="keep-blocked" onClick={() => setDeclined(true)}>
            Keep them blocked
          </button>
        </div>
        {error ? <p class="error-text">{error}</p> : null}
      </div>
    );
  }
  return (
    <span data-env-keys={codebase.allow_env_keys ? 'allowed' : 'blocked'}>
      {found} · <strong>{codebase.allow_env_keys ? 'allowed' : 'blocked'}</strong>{' '}
      <button
        type="button"
        class="btn btn-small"
        data-action={codebase.allow_env_keys ? 'revoke-env' : 'allow-env'}
        onClick={() => void consent(!codebase.allow_env_keys)}
      >
        {codebase.allow_env_keys ? 'Revoke' : 'Allow'}
      </button>
      {error ? <span class="error-text"> {error}</span> : null}
    </span>
  );
}
