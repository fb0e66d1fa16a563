import { useEffect, useRef, useState } from 'preact/hooks';
import { sendJson } from '../api.js';
import { userHeaders } from './identity.js';

/**
 * Signing in with a subscription instead of a key (`POST /api/auth/providers/{vendor}/oauth/start`
 * and `/poll`). Two ways, as the server answers the start:
 * - manual: the page links the vendor's sign-in page; the person signs in there and pastes the
 *   code it shows (or the whole address it landed on) here, which is sent once with a poll;
 * - device: the page shows the code to enter at the vendor's address, and polls at the interval
 *   the server gave until the login is connected, fails or expires.
 * The tokens never reach the page: the server stores them as the user's credential.
 */

/** The vendors the server offers subscription logins for (the start route refuses others with a 400). */
export const SUBSCRIPTION_VENDORS: readonly string[] = ['anthropic', 'openai', 'github-copilot'];

interface Started {
  sessionId: string;
  mode: 'manual' | 'device';
  url?: string;
  userCode?: string;
  verificationUri?: string;
  verificationUriComplete?: string;
  interval?: number;
  expiresIn: number;
}
interface Polled {
  status: 'pending' | 'connected' | 'error';
  detail?: string;
}

export function SubscriptionLogin(props: { vendor: string; onDone(message: { ok: boolean; message: string }): void }) {
  const { vendor } = props;
  const [login, setLogin] = useState<Started | undefined>(undefined);
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | undefined>(undefined);
  const base = `/api/auth/providers/${encodeURIComponent(vendor)}/oauth`;
  const live = useRef(true);
  useEffect(
    () => () => {
      live.current = false;
    },
    [],
  );

  const finish = (answer: Polled) => {
    if (answer.status === 'pending') return false;
    setLogin(undefined);
    setCode('');
    props.onDone(
      answer.status === 'connected'
        ? { ok: true, message: `Connected your ${vendor} subscription.` }
        : { ok: false, message: `The ${vendor} sign-in failed: ${answer.detail ?? 'no reason given'}` },
    );
    return true;
  };

  const start = async () => {
    setBusy(true);
    setNote(undefined);
    try {
      setLogin(await sendJson<Started>('POST', `${base}/start`, undefined, userHeaders()));
    } catch (err) {
      props.onDone({ ok: false, message: (err as Error).message });
    }
    setBusy(false);
  };

  // A device login: ask at the server's interval until it is no longer pending.
  useEffect(() => {
    if (login?.mode !== 'device') return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const ask = async () => {
      try {
        const answer = await sendJson<Polled>('POST', `${base}/poll`, { sessionId: login.sessionId }, userHeaders());
        if (stopped || !live.current || finish(answer)) return;
      } catch (err) {
        if (stopped || !live.current) return;
        setLogin(undefined);
        props.onDone({ ok: false, message: (err as Error).message });
        return;
      }
      timer = setTimeout(() => void ask(), (login.interval ?? 5) * 1000);
    };
    timer = setTimeout(() => void ask(), (login.interval ?? 5) * 1000);
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [login]);

  const send = async () => {
    if (!login || !code.trim()) return;
    setBusy(true);
    try {
      const answer = await sendJson<Polled>('POST', `${base}/poll`, { sessionId: login.sessionId, code: code.trim() }, userHeaders());
      if (!finish(answer)) setNote('Not signed in yet: finish signing in on the vendor’s page, then paste the code it shows.');
    } catch (err) {
      props.onDone({ ok: false, message: (err as Error).message });
    }
    setBusy(false);
  };

  if (!login) {
    return (
      <button type="button" class="btn btn-small" data-action="subscription" disabled={busy} onClick={() => void start()}>
        Sign in with a subscription
      </button>
    );
  }
  return (
    <div class="subscription-login" data-login-mode={login.mode}>
      {login.mode === 'manual' ? (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <a href={login.url} target="_blank" rel="noopener noreferrer" data-login-url>
            Open the {vendor} sign-in page
          </a>
          , sign in, then paste the code it shows:
          <input
            type="text"
            name={`code-${vendor}`}
            aria-label={`${vendor} sign-in code`}
            autocomplete="off"
            placeholder="code (or the address you landed on)"
            value={code}
            onInput={(e) => setCode((e.target as HTMLInputElement).value)}
          />
          <button type="submit" class="btn btn-small" data-action="finish-login" disabled={busy || !code.trim()}>
            Finish
          </button>
        </form>
      ) : (
        <p>
          Enter <strong class="user-code" data-user-code>{login.userCode}</strong> at{' '}
          <a href={login.verificationUriComplete ?? login.verificationUri} target="_blank" rel="noopener noreferrer" data-login-url>
            {login.verificationUri}
          </a>
          <span class="muted" data-login-waiting>
            {' '}
            · waiting for you to approve it…
          </span>
        </p>
      )}
      <p class="muted">
        The login expires in {Math.round(login.expiresIn / 60)} min.{' '}
        <button type="button" class="btn btn-small" data-action="cancel-login" onClick={() => (setLogin(undefined), setCode(''))}>
          Cancel
        </button>
      </p>
      {note ? <p class="muted" data-login-note>{note}</p> : null}
    </div>
  );
}
