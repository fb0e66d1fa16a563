import type { z } from 'zod';
import { errorBodySchema } from '../wire/error-body.js';
import { CliError } from './cli-error.js';
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
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    schema: S,
    opts?: { body?: unknown; signal?: AbortSignal },
  ): Promise<ApiResult<z.infer<S>>>;
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

/** The error for a non-2xx answer: the server's `{ error }` message, else the status and body text. */
export async function responseError(res: Response): Promise<CliError> {
  const text = await res.text().catch(() => '');
  let message = `The server answered ${res.status} ${res.statusText}`.trim();
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) message = parsed.data.detail ? `${parsed.data.error} (${parsed.data.detail})` : parsed.data.error;
    else if (text) message += `: ${text.slice(0, 200)}`;
  } catch {
    if (text) message += `: ${text.slice(0, 200)}`;
  }
  return new CliError('SERVER_ERROR', message);
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

/** A small JSON client for the Cairn HTTP API. */
export function createApiClient(address: ServerAddress): ApiClient {
  const call = async (path: string, init: RequestInit): Promise<Response> => {
    try {
      return await fetch(`${address.url}${path}`, init);
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
      if (!res.ok) throw await responseError(res);
      const raw: unknown = await res.json().catch((err: unknown) => {
        throw new CliError('SERVER_ERROR', `The server's answer to ${method} ${path} is not JSON.`, 1, { cause: err });
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
    async openStream(path, opts) {
      const res = await call(path, { headers: { accept: 'text/event-stream', ...opts.headers }, signal: opts.signal });
      if (!res.ok) throw await responseError(res);
      return res;
    },
  };
}
