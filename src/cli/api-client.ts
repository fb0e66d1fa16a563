import type { z } from 'zod';
import { errorBodySchema } from '../wire/error-body.js';
import { CliError } from '../terminal/cli-error.js';
import { explainError, type ErrorSubject } from './error-hints.js';
import type { ServerAddress } from './server-address.js';

/** How long a plain request may take before the CLI gives up on the server. */
const REQUEST_TIMEOUT_MS = 30_000;

/** A response body: the raw JSON (what `--json` prints) and the parsed view the CLI reads. */
export interface ApiResult<T> {
  raw: unknown;
  body: T;
}

export interface ApiClient {
  readonly address: ServerAddress;
  request<S extends z.ZodType>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    schema: S,
    opts?: { body?: unknown; signal?: AbortSignal; subject?: ErrorSubject },
  ): Promise<ApiResult<z.infer<S>>>;
  /** A GET whose body is read as bytes (an artifact): the open response, after a non-2xx became an error. */
  download(path: string, opts?: { signal?: AbortSignal }): Promise<Response>;
  /** Opens a long-lived response (SSE); the caller reads and closes it. */
  openStream(path: string, opts: { headers?: Record<string, string>; signal: AbortSignal }): Promise<Response>;
}

function howToReach(address: ServerAddress): string {
  switch (address.source) {
    case 'flag':
      return 'Check the --url argument, or start the server with `cairn serve` (or `npm start` in the Cairn checkout).';
    case 'env':
      return 'Check CAIRN_URL, or start the server with `cairn serve` (or `npm start` in the Cairn checkout).';
    default:
      return (
        'Start it with `cairn serve` (or `npm start` in the Cairn checkout), ' +
        'or point the CLI at a running server with --url or CAIRN_URL.'
      );
  }
}

/** The error for a server that does not answer, saying how to start one. */
export function unreachableError(address: ServerAddress, cause: unknown): CliError {
  const reason = (cause as { cause?: { code?: string } })?.cause?.code ?? (cause as Error)?.message ?? 'no answer';
  return new CliError('SERVER_UNREACHABLE', `Cannot reach the Cairn server at ${address.url} (${reason}).\n${howToReach(address)}`, 1, {
    cause,
  });
}

/** What to check when the address answers but not as a Cairn server does. */
function whichAddress(address: ServerAddress): string {
  switch (address.source) {
    case 'flag':
      return 'Check the --url argument.';
    case 'env':
      return 'Check CAIRN_URL.';
    case 'server-file':
      return 'It is the address in $CAIRN_HOME/run/server.json; point the CLI at the Cairn server with --url or CAIRN_URL.';
    default:
      return 'Is another program listening on that port? Point the CLI at the Cairn server with --url or CAIRN_URL (or PORT).';
  }
}

/** The error for an answer a Cairn server would not give (HTML, or JSON of another shape). */
function notCairnError(address: ServerAddress, what: string): CliError {
  return new CliError('SERVER_ERROR', `${address.url} answered ${what}: it does not look like a Cairn server. ${whichAddress(address)}`);
}

/**
 * The error for a non-2xx answer: the server's `{ error }` message with the next step its code
 * calls for (error-hints.ts); an answer that is not a Cairn error body says the address is not
 * a Cairn server's.
 */
export async function responseError(res: Response, address: ServerAddress, subject?: ErrorSubject): Promise<CliError> {
  const text = await res.text().catch(() => '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: below
  }
  const parsed = errorBodySchema.safeParse(json);
  if (!parsed.success) return notCairnError(address, `${res.status} ${res.statusText}`.trim() + ' with no Cairn error body');
  const { error, detail, code, errors } = parsed.data;
  // A list of problems says what a detail would: it is printed one problem a line instead.
  const message = detail && !errors?.length ? `${error} (${detail})` : error;
  return new CliError('SERVER_ERROR', explainError({ code, message, problems: errors }, subject));
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

/** What every request of a client carries beyond its own fields. */
export interface ClientOptions {
  /** The user the per-user routes act for (`X-Service-User`), from `--user` or `CAIRN_USER`. */
  user?: string | undefined;
}

/** A small JSON client for the Cairn HTTP API. */
export function createApiClient(address: ServerAddress, options: ClientOptions = {}): ApiClient {
  const identity: Record<string, string> = options.user ? { 'x-service-user': options.user } : {};
  const call = async (path: string, init: RequestInit): Promise<Response> => {
    try {
      return await fetch(`${address.url}${path}`, { ...init, headers: { ...identity, ...(init.headers as Record<string, string>) } });
    } catch (err) {
      if (isAbort(err) && (init.signal as AbortSignal | undefined)?.reason?.name !== 'TimeoutError') throw err;
      throw unreachableError(address, err);
    }
  };
  return {
    address,
    async request(method, path, schema, opts = {}) {
      const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
      const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
      const res = await call(path, {
        method,
        signal,
        headers: opts.body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json', accept: 'application/json' },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
      if (!res.ok) throw await responseError(res, address, opts.subject);
      const raw: unknown = await res.json().catch(() => {
        throw notCairnError(address, `${method} ${path} with a body that is not JSON`);
      });
      const parsed = schema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new CliError(
          'SERVER_ERROR',
          `The server's answer to ${method} ${path} has an unexpected shape (${issue?.path.join('.') || 'body'}: ${issue?.message}). ` +
            'Is the CLI the same version as the server?',
        );
      }
      return { raw, body: parsed.data };
    },
    async download(path, opts = {}) {
      const res = await call(path, { headers: { accept: '*/*' }, ...(opts.signal ? { signal: opts.signal } : {}) });
      if (!res.ok) throw await responseError(res, address);
      return res;
    },
    async openStream(path, opts) {
      const res = await call(path, { headers: { accept: 'text/event-stream', ...opts.headers }, signal: opts.signal });
      if (!res.ok) throw await responseError(res, address);
      return res;
    },
  };
}
