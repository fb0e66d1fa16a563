import { useLayoutEffect, useRef } from 'preact/hooks';

/**
 * Keyboard first: the page on screen registers its keys (j/k to move, Enter to open, a/r to
 * approve or reject, `/` to search). Keys typed into a field are the field's, except Escape,
 * which leaves it.
 */

export type KeyHandlers = Partial<Record<string, (event: KeyboardEvent) => void>>;

function typing(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (!element) return false;
  return element.tagName === 'INPUT' || element.tagName === 'TEXTAREA' || element.tagName === 'SELECT' || element.isContentEditable;
}

/**
 * Registers the page's keys. A layout effect: the listener is in place in the same commit that
 * puts the page on screen; a plain effect runs after the browser paints (a frame later, more on a
 * busy machine), and a key pressed as soon as the page shows was lost.
 */
export function useKeys(handlers: KeyHandlers): void {
  const current = useRef(handlers);
  current.current = handlers;
  useLayoutEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (typing(event.target)) {
        if (event.key === 'Escape') (event.target as HTMLElement).blur();
        return;
      }
      const handler = current.current[event.key];
      if (!handler) return;
      event.preventDefault();
      handler(event);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
