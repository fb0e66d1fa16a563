import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/**
 * A page whose code is its own file, loaded the first time it is shown (the chat page and the
 * markdown libraries it needs stay out of the initial script). Until it arrives the page says
 * so; if the file cannot be loaded (the server was upgraded meanwhile), it says to reload.
 */
export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  return function LazyPage(props: P) {
    const [component, setComponent] = useState<ComponentType<P> | undefined>(() => loaded);
    const [error, setError] = useState<string | undefined>(undefined);
    useEffect(() => {
      if (loaded) return;
      let live = true;
      loading ??= load();
      loading.then(
        (c) => {
          loaded = c;
          if (live) setComponent(() => c);
        },
        (err: Error) => {
          loading = undefined;
          if (live) setError(err.message);
        },
      );
      return () => {
        live = false;
      };
    }, []);
    if (error) {
      return (
        <main class="page">
          <p class="error-text">This page could not be loaded ({error}): reload it.</p>
        </main>
      );
    }
    if (!component) {
      return (
        <main class="page">
          <p class="muted">Loading…</p>
        </main>
      );
    }
    const Component = component;
    return <Component {...props} />;
  };
}
