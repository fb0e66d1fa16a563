import { CairnError } from '../../shared/errors.js';

/**
 * How deep a request's JSON may nest. The deepest real body (a workflow definition with an
 * `output_format` schema) stays far under it. Deeper bodies are refused before anything is
 * written: past about 1000 levels SQLite's JSON functions stop reading a stored row (a run
 * queued with one could never start), and past some thousands `JSON.stringify` runs out of stack.
 */
export const MAX_JSON_DEPTH = 100;

/** Throws a 400 when `value` nests objects or arrays deeper than MAX_JSON_DEPTH. No recursion: any depth is measured safely. */
export function checkJsonDepth(value: unknown, what = 'Request body'): void {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const item of level) {
      if (typeof item !== 'object' || item === null) continue;
      if (depth >= MAX_JSON_DEPTH) {
        throw new CairnError('VALIDATION_FAILED', `${what} nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep; flatten it`);
      }
      for (const child of Object.values(item)) if (typeof child === 'object' && child !== null) next.push(child);
    }
    level = next;
  }
}
