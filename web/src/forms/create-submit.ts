import { useState } from 'preact/hooks';

/**
 * A form that creates something with one request: `submit(send)` marks it busy, clears the last
 * error and result, and keeps what `send` answers as `created`, or its refusal as `error` (the
 * server's own words). `refuse(message)` shows a refusal the form makes itself.
 */
export function useCreateSubmit<T>() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [created, setCreated] = useState<T | undefined>(undefined);
  async function submit(send: () => Promise<T>, onCreated: (value: T) => void): Promise<void> {
    setBusy(true);
    setError(undefined);
    setCreated(undefined);
    try {
      const value = await send();
      setCreated(value);
      onCreated(value);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, created, submit, refuse: setError };
}
