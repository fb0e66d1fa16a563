import { useEffect, useState } from 'preact/hooks';
import { ApiError, getJson } from '../api.js';
import { Credentials } from '../settings/credentials.js';
import { setUser, user, userHeaders } from '../settings/identity.js';
import { installScope, userScope } from '../settings/model-scopes.js';
import { ModelSettings } from '../settings/model-settings.js';
import { DoctorChecks } from '../settings/doctor-checks.js';
import { ServerFacts } from '../settings/server-facts.js';
import type { ProviderInfo } from '../settings/types.js';

type Identity = { state: 'checking' } | { state: 'known' } | { state: 'needed' } | { state: 'error'; message: string };

/**
 * `/settings`: the install's model configuration (default assistant, tiers, aliases), the
 * user's own layer of it and their provider keys (per user: the `X-Service-User` identity), and
 * what the server says about itself.
 */
export function SettingsPage() {
  const [providers, setProviders] = useState<ProviderInfo[]>([]);
  const [identity, setIdentity] = useState<Identity>({ state: 'checking' });
  const [name, setName] = useState(user.value);
  const who = user.value;

  useEffect(() => {
    getJson<{ providers: ProviderInfo[] }>('/api/providers')
      .then((answer) => setProviders(answer.providers))
      .catch(() => setProviders([]));
  }, []);
  useEffect(() => {
    let live = true;
    setIdentity({ state: 'checking' });
    getJson('/api/auth/me/ai-prefs', undefined, userHeaders())
      .then(() => live && setIdentity({ state: 'known' }))
      .catch((err: Error) => {
        if (!live) return;
        setIdentity(err instanceof ApiError && err.status === 401 ? { state: 'needed' } : { state: 'error', message: err.message });
      });
    return () => {
      live = false;
    };
  }, [who]);

  return (
    <main class="page settings-page">
      <h2>Settings</h2>
      <section class="settings-section" data-section="install">
        <h3>This install</h3>
        <p class="muted">
          <code>$CAIRN_HOME/config.yaml</code>: for every run and chat started after a change, below each user’s own choices.
        </p>
        <ModelSettings scope={installScope} providers={providers} />
      </section>

      <section class="settings-section" data-section="user">
        <h3>Yours</h3>
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            setUser(name);
          }}
        >
          <label class="inline-label">
            User
            <input type="text" name="user" autocomplete="username" placeholder="your user id" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </label>
          <button type="submit" class="btn" data-action="use-user">
            Use
          </button>
          <span class="muted">
            Sent as <code>X-Service-User</code> with these settings’ requests only, and kept in this browser. A proxy that signs people in sets it
            instead.
          </span>
        </form>
        {identity.state === 'needed' ? (
          <p class="warning" data-identity="needed">
            These settings are per user and the server does not know who you are: type your user id above, or open the dashboard through a proxy
            that signs you in.
          </p>
        ) : null}
        {identity.state === 'error' ? <p class="error-text">{identity.message}</p> : null}
        {identity.state === 'known' ? (
          <div data-identity="known">
            <p class="muted">Your choices come first when your runs and chats pick a model.</p>
            <ModelSettings scope={userScope} providers={providers} readKey={who} />
            <h4>Provider keys</h4>
            <Credentials readKey={who} />
          </div>
        ) : null}
      </section>

      <section class="settings-section" data-section="server">
        <h3>The server</h3>
        <ServerFacts providers={providers} />
      </section>

      <section class="settings-section" data-section="doctor">
        <h3>Checks</h3>
        <DoctorChecks />
      </section>
    </main>
  );
}
