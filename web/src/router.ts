import { signal } from '@preact/signals';

/**
 * Where the page is: the path and query of the address bar, as a signal. The pages keep their
 * filters in the query, so an address can be bookmarked, shared and reloaded; the back button
 * works. The server answers every such address with the page (src/api/routes/web-pages.ts).
 */

export interface Location {
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

export const location = signal<Location>(current());

window.addEventListener('popstate', () => {
  location.value = current();
});

/** Goes to `href` (a path with an optional query) without reloading; `replace` keeps history short for filter edits. */
export function navigate(href: string, opts: { replace?: boolean } = {}): void {
  if (opts.replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  location.value = current();
  if (!opts.replace) window.scrollTo(0, 0);
}

/** A click on an in-page link: navigate without reloading, unless a modifier asks for a new tab or the link is a download. */
export function followLink(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element | null)?.closest('a');
  if (!anchor || anchor.origin !== window.location.origin || anchor.target || anchor.hasAttribute('download')) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}

/** The address with some query values changed (an empty value removes it). */
export function hrefWith(changes: Record<string, string | undefined>): string {
  const { path, query } = location.value;
  const next = new URLSearchParams(query);
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined || value === '') next.delete(key);
    else next.set(key, value);
  }
  const text = next.toString();
  return text ? `${path}?${text}` : path;
}
