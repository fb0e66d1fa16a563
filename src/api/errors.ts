import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CairnError, type ErrorCode } from '../shared/errors.js';
import type { Logger } from '../shared/log.js';

/**
 * The one place that turns an error into an HTTP status and a JSON body. Handlers throw
 * CairnErrors (or let zod validation fail); they never choose a status themselves.
 */
export const statusByCode: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  NOT_FOUND: 404,
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
  STORE_UNAVAILABLE: 503,
  RUNTIME_NOT_FOUND: 500,
  INTERNAL: 500,
  EXECUTION_RECORD_INVALID: 500,
};

/** Error texts fixed by the contract or by upstream clients that match on them. */
export const errorText = {
  invalidJson: 'Invalid JSON in request body',
  internal: 'Internal server error',
} as const;

/** Every error response: `{ error, code }`, with `detail` when there is more to say. */
export const errorBodySchema = z
  .object({
    error: z.string().describe('What went wrong, naming the field or the thing'),
    code: z.string().describe('Stable machine-readable code, e.g. RUN_NOT_FOUND'),
    detail: z.string().optional().describe('More about the error, when there is more to say'),
    errors: z
      .array(z.string())
      .optional()
      .describe('Every problem found, one per entry, when the error stands for several (an invalid workflow definition)'),
  })
  .loose()
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof errorBodySchema>;

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
};

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
      if (field === undefined) return context === 'body' || !context ? message : `${context}: ${message}`;
      return mentions(message, field) ? message : `${path.join('.')}: ${message}`;
    })
    .join('; ');
}

/** "Invalid conversation ID" mentions `conversationId`: compare without case, spaces or dashes. */
function mentions(message: string, field: string): boolean {
  const squash = (text: string) => text.toLowerCase().replace(/[\s_-]/g, '');
  return squash(message).includes(squash(field));
}

/** Turns anything a route threw into a CairnError, once, at the edge. */
export function toCairnError(err: unknown, bodyLimit: number): CairnError {
  if (err instanceof CairnError) return err;
  const fastifyError = err as FastifyError & { validation?: ValidationIssue[] };
  if (Array.isArray(fastifyError.validation)) {
    const message = formatValidationIssues(fastifyError.validation, fastifyError.validationContext);
    return new CairnError('VALIDATION_FAILED', message, undefined, { cause: err });
  }
  const code = typeof fastifyError.code === 'string' ? fastifyCodes[fastifyError.code] : undefined;
  switch (code) {
    case 'INVALID_JSON':
      return new CairnError(code, errorText.invalidJson, undefined, { cause: err });
    case 'PAYLOAD_TOO_LARGE':
      return new CairnError(code, `Request body is larger than the ${bodyLimit}-byte limit`, undefined, {
        cause: err,
      });
    case 'UNSUPPORTED_MEDIA_TYPE':
      return new CairnError(code, `${fastifyError.message}; send the body as application/json`, undefined, {
        cause: err,
      });
    case undefined:
      break;
    default:
      return new CairnError(code, fastifyError.message, undefined, { cause: err });
  }
  // Any other 4xx fastify raised on its own (bad URL encoding...) keeps its status family.
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode < 500) {
    return new CairnError('VALIDATION_FAILED', fastifyError.message, undefined, { cause: err });
  }
  return new CairnError('INTERNAL', errorText.internal, undefined, { cause: err });
}

/**
 * Error details reach the client only as text (`detail`), plus the problem list of a
 * ProblemListError; other structured details stay in logs.
 */
export function errorBody(err: CairnError): ErrorBody {
  const body: ErrorBody =
    typeof err.details === 'string'
      ? { error: err.message, code: err.code, detail: err.details }
      : { error: err.message, code: err.code };
  if (err instanceof ProblemListError) body.errors = [...err.problems];
  return body;
}

/** Installs the error and not-found handlers; the whole HTTP error policy lives here. */
export function registerErrorHandling(app: FastifyInstance, log: Logger, bodyLimit: number): void {
  app.setErrorHandler((thrown: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const err = toCairnError(thrown, bodyLimit);
    const status = statusByCode[err.code];
    if (status >= 500) {
      log.error({ err: thrown, method: req.method, url: req.url }, 'api.request_failed');
    } else {
      log.debug({ code: err.code, method: req.method, url: req.url }, 'api.request_refused');
    }
    return reply.code(status).send(errorBody(err));
  });
  app.setNotFoundHandler((req, reply) => {
    const err = new CairnError('NOT_FOUND', `Route not found: ${req.method} ${req.url.split('?')[0]}`);
    return reply.code(statusByCode[err.code]).send(errorBody(err));
  });
}
