import { CairnError } from '../shared/errors.js';

/**
 * Node paths: where a node sits in a run, readable by people and stable across resumes.
 *
 *   build                  top-level node `build`
 *   fix/test               node `test` inside loop group `fix` (the iteration is in
 *                          `invocation.loopPath`, not in the path)
 *   review[2]              instance 2 (0-based, item order) of fan-out node `review`
 *   review[2]/lint         node `lint` of the child workflow run by that instance
 *   deploy/smoke           node `smoke` of the child workflow composed into node `deploy`
 *
 * A segment is a node id, optionally followed by `[ordinal]`. Node ids therefore cannot
 * contain `/`, `[` or `]`.
 */

export const PATH_SEPARATOR = '/';

export interface PathSegment {
  id: string;
  /** Set on a fan-out instance segment. */
  ordinal?: number;
}

const forbidden = /[/[\]]/;
const segmentPattern = /^([^/[\]]+)(?:\[(0|[1-9]\d*)\])?$/;

/** Throws unless `id` can be a path segment. */
export function assertNodeId(id: string): void {
  if (id.length === 0 || forbidden.test(id)) {
    throw new CairnError(
      'WORKFLOW_INVALID',
      `Node id '${id}' cannot be empty or contain '/', '[' or ']' (they separate the parts of a node path)`,
    );
  }
}

/** The path of node `id`, at the top level or inside the scope `parent` (a loop group, instance or child). */
export function nodePath(id: string, parent?: string): string {
  assertNodeId(id);
  return parent === undefined ? id : `${parent}${PATH_SEPARATOR}${id}`;
}

/** The path of instance `ordinal` of the fan-out node at `fanOutPath`. */
export function instancePath(fanOutPath: string, ordinal: number): string {
  if (!Number.isInteger(ordinal) || ordinal < 0) {
    throw new CairnError('INTERNAL', `Fan-out ordinal must be a non-negative integer, got ${ordinal}`);
  }
  return `${fanOutPath}[${ordinal}]`;
}

/** The segments of a path, or undefined when it is not a well-formed path. */
export function parseNodePath(path: string): PathSegment[] | undefined {
  const segments: PathSegment[] = [];
  for (const part of path.split(PATH_SEPARATOR)) {
    const match = segmentPattern.exec(part);
    if (!match) return undefined;
    segments.push(match[2] === undefined ? { id: match[1]! } : { id: match[1]!, ordinal: Number(match[2]) });
  }
  return segments;
}

export function isValidNodePath(path: string): boolean {
  return parseNodePath(path) !== undefined;
}

/** True when `path` lies strictly inside `scope` (e.g. `review[2]/lint` inside `review[2]`). */
export function isWithinScope(path: string, scope: string): boolean {
  return path.length > scope.length + 1 && path.startsWith(scope) && path[scope.length] === PATH_SEPARATOR;
}

/**
 * Whether some scope in `scopes` encloses `path` (isWithinScope for any of them), by looking up
 * each enclosing prefix of `path`: as many lookups as `path` has separators, however many
 * scopes there are (a 10,000-item fan-out has 10,000 instance scopes).
 */
export function isWithinAnyScope(path: string, scopes: ReadonlySet<string>): boolean {
  for (let at = path.indexOf(PATH_SEPARATOR); at !== -1 && at < path.length - 1; at = path.indexOf(PATH_SEPARATOR, at + 1)) {
    if (scopes.has(path.slice(0, at))) return true;
  }
  return false;
}

/** The scope that encloses `path`, or undefined for a top-level node. */
export function parentPath(path: string): string | undefined {
  const at = path.lastIndexOf(PATH_SEPARATOR);
  return at < 0 ? undefined : path.slice(0, at);
}
