/**
 * Typed errors with a stable `code`. Code that knows what went wrong throws a CairnError;
 * `api/errors.ts` is the one place that maps a code to an HTTP status.
 */
export const errorCodes = [
  'VALIDATION_FAILED',
  'INVALID_JSON',
  'PAYLOAD_TOO_LARGE',
  'NOT_FOUND',
  'RUN_NOT_FOUND',
  'RUN_INVALID_STATE',
  'WORKFLOW_NOT_FOUND',
  'WORKFLOW_INVALID',
  'WORKFLOW_SOURCE_INVALID',
  'WORKFLOW_READ_ONLY',
  'INPUTS_INVALID',
  'CWD_INVALID',
  'CONFIG_INVALID',
  'STORE_UNAVAILABLE',
  'RUNTIME_NOT_FOUND',
  'INTERNAL',
  'UNSUPPORTED_MEDIA_TYPE',
  'WORKFLOW_DEFINITION_INVALID',
  /** A node execution or cache record failed its schema: a bug in its writer, or a corrupt row. */
  'EXECUTION_RECORD_INVALID',
  /** The request's URL does not decode (a malformed percent-escape). */
  'INVALID_URL',
  /** A path segment of the URL is longer than any id or name the API accepts. */
  'URL_TOO_LONG',
  /** The request line and headers are over Node's header size limit. */
  'HEADERS_TOO_LARGE',
  /** The client did not send a whole request in time. */
  'REQUEST_TIMEOUT',
  /** Bytes that are not an HTTP/1.1 request. */
  'MALFORMED_REQUEST',
  /** No codebase is registered under the id. */
  'CODEBASE_NOT_FOUND',
  /** A path given to register does not exist, is not a directory, or cannot be read. */
  'CODEBASE_PATH_INVALID',
  /** git could not clone the URL (unreachable, not a repository, refused). */
  'CODEBASE_CLONE_FAILED',
  /** No conversation has the platform id. */
  'CONVERSATION_NOT_FOUND',
  /** A conversation was asked to bind to a codebase that is not registered (a bad request, not a missing resource). */
  'CONVERSATION_CODEBASE_UNKNOWN',
  /** A run's `branch` is not a name git accepts for a branch (or holds characters Cairn refuses). */
  'BRANCH_NAME_INVALID',
  /** A run's `baseBranch` names no branch of its repository (locally or on origin), or the run has no repository. */
  'BASE_BRANCH_NOT_FOUND',
  /** A run's worktree cannot be used: its branch or checkout is held, or the path fails the ownership checks. */
  'WORKTREE_REFUSED',
  /** git could not create or remove a worktree. */
  'WORKTREE_FAILED',
  /** A codebase still has a run working in one of its environments. */
  'CODEBASE_BUSY',
  /** A run has no worktree of its own to diff (no codebase, the checkout itself, or a shared one). */
  'RUN_WORKTREE_NOT_FOUND',
  /** A run's diff cannot be made: its worktree was removed, it has no base branch, or an attempt's commits do not bound its work. */
  'RUN_DIFF_UNAVAILABLE',
  /** TOKEN_ENCRYPTION_KEY or the install key file is not a 64-hex-character key (a startup error). */
  'INSTALL_KEY_INVALID',
  /** A sealed value cannot be opened: another install key sealed it, or it was altered. */
  'SECRET_UNREADABLE',
  /** A per-user route was called without an identity (`X-Service-User`). */
  'IDENTITY_REQUIRED',
  /** A credential write names no known vendor, or its key is blank or malformed. */
  'CREDENTIAL_INVALID',
  /** A subscription login was asked of a vendor that has none. */
  'OAUTH_UNSUPPORTED',
  /** A login poll names no login under way for this user and provider. */
  'OAUTH_SESSION_NOT_FOUND',
  /** The vendor's authorization server could not start a login (unreachable, or it refused). */
  'OAUTH_UNAVAILABLE',
  /** The user's credential for a run cannot be used (expired and its refresh refused). */
  'CREDENTIAL_UNUSABLE',
  /** The request's Host is not a loopback name, the listen address or a configured name (DNS rebinding). */
  'HOST_NOT_ALLOWED',
  /** A state-changing request sent by another web page (its Origin, Sec-Fetch-Site or Referer says so). */
  'CROSS_ORIGIN_REFUSED',
  /** The API serves as many SSE streams as it may (in all, or from the client's address); retry later. */
  'STREAM_LIMIT_REACHED',
  /** No schedule has the id or name asked for. */
  'SCHEDULE_NOT_FOUND',
  /** A schedule with that name exists already. */
  'SCHEDULE_EXISTS',
  /** A schedule declared in a workflow file cannot be deleted over the API (the file declares it again). */
  'SCHEDULE_DECLARED',
  /** No webhook has the name asked for. */
  'HOOK_NOT_FOUND',
  /** A webhook with that name exists already. */
  'HOOK_EXISTS',
  /** A delivery's signature is missing, wrong, or (generic form) its timestamp is too old. */
  'HOOK_SIGNATURE_INVALID',
  /** A signed delivery's payload does not map onto the workflow's inputs (a path finds nothing, or an object). */
  'HOOK_PAYLOAD_UNFIT',
  /** A GitHub hook could not ask GitHub what it must before admitting a delivery (a permission, a pull request's branch): nothing was admitted. */
  'GITHUB_UNAVAILABLE',
  /** A workflow's `concurrency:` (on_overlap: refuse) has no free place for the run's key. */
  'CONCURRENCY_LIMIT_REACHED',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

export class CairnError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = code;
  }
}

/** Turns anything thrown into an Error exactly once, at the edge where it is caught. */
export function coerceError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  return new Error(typeof thrown === 'string' ? thrown : JSON.stringify(thrown));
}
