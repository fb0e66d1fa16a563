import { useState } from 'preact/hooks';
import type { Ref } from 'preact';
import { sendJson } from '../api.js';
import type { Codebase } from './types.js';

export interface RegisterFormProps {
  onRegistered(codebase: Codebase): void;
  field?: Ref<HTMLInputElement>;
}

/**
 * Registers a codebase (`POST /api/codebases`): a local folder in place (`{ path }`, an absolute
 * path on the server's machine) or a repository to clone (`{ url }`, any URL git clones). The
 * server's refusal is shown as it says it.
 */
export function RegisterForm(props: RegisterFormProps) {
  const [source, setSource] = useState<'path' | 'url'>('path');
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const submit = async () => {
    const text = value.trim();
    if (!text || busy) return;
    setBusy(true);
    setError(undefined);
    try {
      const codebase = await sendJson<Codebase>('POST', '/api/codebases', { [source]: text });
      setValue('');
      props.onRegistered(codebase);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="filters register-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label>
        Register
        <select name="source" value={source} onChange={(e) => setSource((e.target as HTMLSelectElement).value as 'path' | 'url')}>
          <option value="path">a local folder</option>
          <option value="url">a repository to clone</option>
        </select>
      </label>
      <label class="grow">
        {source === 'path' ? 'Absolute path on the server’s machine' : 'URL git can clone'}
        <input
          ref={props.field}
          type="text"
          name="location"
          placeholder={source === 'path' ? '/home/me/src/widget' : 'https://github.com/acme/widget.git'}
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit" class="btn" data-action="register" disabled={busy || value.trim() === ''}>
        {busy ? (source === 'url' ? 'Cloning…' : 'Registering…') : 'Register'}
      </button>
      {error ? (
        <p class="error-text" data-register-error>
          {error}
        </p>
      ) : null}
    </form>
  );
}
