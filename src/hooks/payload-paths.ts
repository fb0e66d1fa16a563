/**
 * Paths into a delivery's JSON payload, a small subset of JSONPath (docs/webhooks.md, "Input
 * mapping"): `$` followed by any number of `.name` (a key of letters, digits, `_` and `-`) and
 * `[n]` (an array index, from 0). `$.pull_request.number`, `$.commits[0].id`. Nothing else: no
 * wildcards, filters, slices, quoted keys or negative indexes.
 */

export type PathStep = { key: string } | { index: number };

const STEP = /\.([A-Za-z0-9_-]+)|\[(\d{1,9})\]/y;

/** The steps of a path, or a sentence saying what is wrong with it. */
export function parsePayloadPath(path: string): PathStep[] | string {
  if (!path.startsWith('$')) return `path '${path}' must start with '$' (the payload), e.g. $.pull_request.number`;
  const steps: PathStep[] = [];
  let at = 1;
  while (at < path.length) {
    STEP.lastIndex = at;
    const m = STEP.exec(path);
    if (!m) {
      return `path '${path}' is not supported at '${path.slice(at)}': use .name (letters, digits, _ and -) and [n] steps only, e.g. $.commits[0].id`;
    }
    steps.push(m[1] !== undefined ? { key: m[1] } : { index: Number(m[2]) });
    at = STEP.lastIndex;
  }
  return steps;
}

/** What the path finds in the payload: undefined when a step finds nothing. */
export function readPayloadPath(payload: unknown, steps: readonly PathStep[]): unknown {
  let here: unknown = payload;
  for (const step of steps) {
    if ('key' in step) {
      if (here === null || typeof here !== 'object' || Array.isArray(here) || !Object.hasOwn(here, step.key)) return undefined;
      here = (here as Record<string, unknown>)[step.key];
    } else {
      if (!Array.isArray(here) || step.index >= here.length) return undefined;
      here = here[step.index];
    }
  }
  return here;
}
