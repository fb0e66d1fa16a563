import { FaultBackoff } from '../shared/fault-backoff.js';
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { dirname } from 'node:path';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { CairnError, type ErrorCode } from '../shared/errors.js';
import { diskFullError, isOutOfSpace } from '../shared/store-faults.js';
import type { Logger } from '../shared/log.js';
import type { ErrorBody } from '../wire/error-body.js';

/**
 * The one place that turns an error into an HTTP status and a JSON body. Handlers throw
 * CairnErrors (or let zod validation fail); they never choose a status themselves. Fastify's own
 * early refusals (a URL that does not decode, an over-long path segment, bytes that are not
 * HTTP) come through here too, so every answer is `{ error, code }` with one of our codes.
 */
export const statusByCode: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  INVALID_URL: 400,
  MALFORMED_REQUEST: 400,
  PAYLOAD_TOO_LARGE: 413,
  URL_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  REQUEST_TIMEOUT: 408,
  NOT_FOUND: 404,
  IDENTITY_REQUIRED: 401,
  // 421 Misdirected Request: the request was addressed to a name this server does not answer to.
  HOST_NOT_ALLOWED: 421,
  CROSS_ORIGIN_REFUSED: 403,
  RUN_NOT_FOUND: 404,
  // Upstream clients expect 400 (not 409) for an operation on a run in the wrong state.
  RUN_INVALID_STATE: 400,
  WORKFLOW_NOT_FOUND: 404,
  // A broken workflow file is the user's input, not a server fault: never a 5xx.
  WORKFLOW_INVALID: 400,
  WORKFLOW_SOURCE_INVALID: 400,
  WORKFLOW_READ_ONLY: 400,
  // A definition sent to be saved that does not validate: `Workflow definition is invalid`.
  WORKFLOW_DEFINITION_INVALID: 400,
  INPUTS_INVALID: 400,
  CWD_INVALID: 400,
  CONFIG_INVALID: 400,
  CODEBASE_NOT_FOUND: 404,
  CODEBASE_PATH_INVALID: 400,
  // Upstream answers 500 `Failed to add codebase: <reason>`; a URL git cannot clone is the
  // caller's input (a typo, a private repository), so the text is kept and the status is a 4xx.
  CODEBASE_CLONE_FAILED: 400,
  CONVERSATION_NOT_FOUND: 404,
  // Upstream: 400 `Codebase not found` when creating a conversation for an unknown codebase.
  CONVERSATION_CODEBASE_UNKNOWN: 400,
  BRANCH_NAME_INVALID: 400,
  BASE_BRANCH_NOT_FOUND: 400,
  // Raised by the supervisor when a run starts (the run fails with the text); 409 if ever answered.
  WORKTREE_REFUSED: 409,
  WORKTREE_FAILED: 500,
  CODEBASE_BUSY: 409,
  RUN_WORKTREE_NOT_FOUND: 404,
  RUN_DIFF_UNAVAILABLE: 409,
  // Server faults: the install key is the operator's to fix; the request was fine.
  CREDENTIAL_INVALID: 400,
  OAUTH_UNSUPPORTED: 400,
  OAUTH_SESSION_NOT_FOUND: 404,
  // The vendor's server failed us: a bad gateway, not the request's fault.
  OAUTH_UNAVAILABLE: 502,
  GITHUB_UNAVAILABLE: 502,
  CREDENTIAL_UNUSABLE: 409,
  INSTALL_KEY_INVALID: 500,
  SECRET_UNREADABLE: 500,
  STORE_UNAVAILABLE: 503,
  // Past the stream cap the server is at capacity for streams, not refusing the request's content.
  STREAM_LIMIT_REACHED: 503,
  RUNTIME_NOT_FOUND: 500,
  SCHEDULE_NOT_FOUND: 404,
  SCHEDULE_EXISTS: 409,
  SCHEDULE_DECLARED: 409,
  HOOK_NOT_FOUND: 404,
  HOOK_EXISTS: 409,
  CONCURRENCY_LIMIT_REACHED: 409,
  HOOK_SIGNATURE_INVALID: 401,
  HOOK_PAYLOAD_UNFIT: 422,
  INTERNAL: 500,
  EXECUTION_RECORD_INVALID: 500,
};

/**
 * `Retry-After` seconds for codes that mean "the same request can succeed later". The store has
 * already waited out ~30 s of contention before it says STORE_UNAVAILABLE.
 */
export const retryAfterSecondsByCode: Partial<Record<ErrorCode, number>> = {
  STORE_UNAVAILABLE: 5,
  // Streams end as their clients go (a closed tab, a finished `--follow`).
  STREAM_LIMIT_REACHED: 10,
};

/** Error texts fixed by the contract or by upstream clients that match on them. */
export const errorText = {
  invalidJson: 'Invalid JSON in request body',
  internal: 'Internal server error',
} as const;

/** What the error texts may say about the request's limits. */
export interface RequestLimits {
  /** Largest request body in bytes. */
  bodyLimit: number;
  /** Longest path segment the router matches. */
  maxParamLength: number;
}

/**
 * An error that stands for several problems, each of which the client may show on its own line
 * (every validation error of a workflow definition). The body keeps `error` one fixed string,
 * joins the problems into `detail`, and lists them in `errors`.
 */
export class ProblemListError extends CairnError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly problems: readonly string[],
  ) {
    super(code, message, problems.join('; '));
  }
}

/** Fastify's own request errors, turned into our codes. */
const fastifyCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'VALIDATION_FAILED',
  FST_ERR_BAD_URL: 'INVALID_URL',
  FST_ERR_MAX_PARAM_LENGTH: 'URL_TOO_LONG',
};

/**
 * Input quoted back in an error text: at most `max` characters, and when cut, how long it was.
 * A refusal names what it refused; it never returns a 16 KB URL to the client that sent it.
 */
export function excerpt(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** The request as error texts quote it: method and path, without the query. */
function describeRequest(req: Pick<FastifyRequest, 'method' | 'url'>): string {
  return `${req.method} ${excerpt(req.url.split('?')[0] ?? '')}`;
}

interface ValidationIssue {
  instancePath?: string;
  message?: string;
}

/**
 * One message for a failed schema: each issue's own text, prefixed with its field path unless
 * the text already names the field (our schemas write messages such as
 * "inputs value for 'x' must be a string" that upstream clients match on verbatim).
 */
export function formatValidationIssues(issues: readonly ValidationIssue[], context?: string): string {
  return issues
    .map((issue) => {
      const path = (issue.instancePath ?? '').split('/').filter(Boolean);
      const message = issue.message ?? 'is invalid';
      const field = path[0];
      if (field === undefined) return context === 'body' || context === 'querystring' || !context ? message : `${context}: ${message}`;
      return mentions(message, field) ? message : `${path.join('.')}: ${message}`;
    })
    .join('; ');
}

/** "Invalid conversation ID" mentions `conversationId`: compare without case, spaces or dashes. */
function mentions(message: string, field: string): boolean {
  const squash = (text: string) => text.toLowerCase().replace(/[\s_-]/g, '');
  return squash(message).includes(squash(field));
}

/** The text for a fastify refusal we mapped to one of our codes. */
function fastifyRefusalText(code: ErrorCode, req: FastifyRequest, limits: RequestLimits): string | undefined {
  switch (code) {
    case 'INVALID_JSON':
      return errorText.invalidJson;
    case 'PAYLOAD_TOO_LARGE':
      return `Request body is larger than the ${limits.bodyLimit}-byte limit`;
    case 'UNSUPPORTED_MEDIA_TYPE':
      return `Unsupported content type '${excerpt(req.headers['content-type'] ?? '')}'; send the body as JSON with content-type: application/json`;
    case 'INVALID_URL':
      return `The URL of ${describeRequest(req)} does not decode: a '%' must start a UTF-8 escape such as %20; encode each path segment with encodeURIComponent`;
    case 'URL_TOO_LONG':
      return `A path segment of ${describeRequest(req)} is longer than ${limits.maxParamLength} characters, longer than any id or name Cairn accepts; check the URL`;
    default:
      return undefined;
  }
}

/** Turns anything a route threw into a CairnError, once, at the edge. */
export function toCairnError(err: unknown, req: FastifyRequest, limits: RequestLimits): CairnError {
  if (err instanceof CairnError) return err;
  const fastifyError = err as FastifyError & { validation?: ValidationIssue[] };
  if (Array.isArray(fastifyError.validation)) {
    const message = formatValidationIssues(fastifyError.validation, fastifyError.validationContext);
    return new CairnError('VALIDATION_FAILED', message, undefined, { cause: err });
  }
  const code = typeof fastifyError.code === 'string' ? fastifyCodes[fastifyError.code] : undefined;
  if (code) return new CairnError(code, fastifyRefusalText(code, req, limits) ?? fastifyError.message, undefined, { cause: err });
  // A file the request wrote (a saved workflow, an upload) found its disk full: the same 503 as
  // the store's, naming the file's folder, never a bare 500.
  if (isOutOfSpace(err)) {
    const path = (err as { path?: unknown }).path;
    return diskFullError(typeof path === 'string' ? dirname(path) : 'CAIRN_HOME', 'write a file', err);
  }
  // Any other 4xx fastify raised on its own keeps its status family, under our code.
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode < 500) {
    return new CairnError('VALIDATION_FAILED', fastifyError.message, undefined, { cause: err });
  }
  return new CairnError('INTERNAL', errorText.internal, undefined, { cause: err });
}

/**
 * Input quoted back at length (a field name sent 1 MiB long, a 1000-character path segment) is
 * one long run without spaces; no text of ours has one. Such runs are cut to an excerpt, and a
 * text still too long loses its middle, keeping the start and the advice at its end.
 */
const longRun = /[^\s'"`]{121,}/g;
const MAX_ERROR_CHARS = 500;
const MAX_DETAIL_CHARS = 4000;

function shorten(text: string, max: number): string {
  const cut = text.replace(longRun, (run) => excerpt(run, 60));
  if (cut.length <= max) return cut;
  const tail = Math.floor(max / 4);
  return `${cut.slice(0, max - tail)}…[${cut.length - max} characters cut]…${cut.slice(-tail)}`;
}

/**
 * Error details reach the client only as text (`detail`), plus the problem list of a
 * ProblemListError; other structured details stay in logs. Texts that quote input at length are
 * shortened here, whichever handler wrote them.
 */
export function errorBody(err: CairnError): ErrorBody {
  const body: ErrorBody = { error: shorten(err.message, MAX_ERROR_CHARS), code: err.code };
  if (typeof err.details === 'string') body.detail = shorten(err.details, MAX_DETAIL_CHARS);
  if (err instanceof ProblemListError) body.errors = err.problems.map((problem) => shorten(problem, MAX_ERROR_CHARS));
  return body;
}

/**
 * The answer to bytes that never became a request (headers over Node's limit, a timeout, not
 * HTTP at all): there is no reply object, so the response is written to the socket. Incoming
 * bytes are discarded and the socket half-closed, so the client reads the answer rather than a
 * connection reset.
 */
function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const cairn =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new CairnError(
          'HEADERS_TOO_LARGE',
          `The request line and headers are larger than the ${maxHeaderSize}-byte limit; shorten the URL or send fewer, smaller headers`,
        )
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new CairnError('REQUEST_TIMEOUT', 'The request did not arrive in time; send it again')
        : new CairnError('MALFORMED_REQUEST', 'The request is not valid HTTP/1.1; check the client that sent it');
  const status = statusByCode[cairn.code];
  const body = JSON.stringify(errorBody(cairn));
  socket.on('error', () => undefined);
  if (!socket.writable) return void socket.destroy();
  socket.resume();
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), 5_000).unref();
}

/** Fastify options that send its own early refusals through this policy (pass to `Fastify()`). */
export function errorHandlingOptions(log: Logger, limits: RequestLimits): FastifyServerOptions {
  return {
    frameworkErrors: (err, req, reply) => void sendError(err, req, reply, log, limits),
    clientErrorHandler: answerClientError,
  };
}

function sendError(thrown: unknown, req: FastifyRequest, reply: FastifyReply, log: Logger, limits: RequestLimits, storeFaults?: FaultBackoff) {
  const err = toCairnError(thrown, req, limits);
  const status = statusByCode[err.code];
  const url = excerpt(req.url, 200);
  // A full disk or a busy database answers every write 503 until it mends: a line per interval, not per request.
  if (err.code === 'STORE_UNAVAILABLE' && storeFaults) storeFaults.failed(thrown, { method: req.method, url });
  else if (status >= 500) log.error({ err: thrown, method: req.method, url }, 'api.request_failed');
  else log.debug({ code: err.code, method: req.method, url }, 'api.request_refused');
  const retryAfter = retryAfterSecondsByCode[err.code];
  if (retryAfter !== undefined) void reply.header('retry-after', String(retryAfter));
  return reply.code(status).send(errorBody(err));
}

/** Installs the error and not-found handlers; the whole HTTP error policy lives here. */
export function registerErrorHandling(app: FastifyInstance, log: Logger, limits: RequestLimits): void {
  const storeFaults = new FaultBackoff(log, { failed: 'api.store_unavailable', recovered: 'api.store_recovered' });
  app.setErrorHandler((thrown: unknown, req: FastifyRequest, reply: FastifyReply) => sendError(thrown, req, reply, log, limits, storeFaults));
  // A write that went through after a streak of them says the store mended (once).
  app.addHook('onResponse', async (req, reply) => {
    if (req.method !== 'GET' && reply.statusCode < 400 && storeFaults.streak > 0) storeFaults.succeeded({ method: req.method });
  });
  app.setNotFoundHandler((req, reply) => {
    const err = new CairnError('NOT_FOUND', `Route not found: ${describeRequest(req)}`);
    return reply.code(statusByCode[err.code]).send(errorBody(err));
  });
}
