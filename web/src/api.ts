/**
 * The page's calls to the API: same origin, relative paths, JSON. A refusal throws an ApiError
 * carrying the server's own message (its `error` field), which the page shows as it is.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function answer<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const error = body && typeof body === 'object' && 'error' in body ? String((body as { error: unknown }).error) : text.slice(0, 200);
    throw new ApiError(res.status, error || `HTTP ${res.status}`);
  }
  return body as T;
}

/** `headers`: extra request headers (the per-user settings name the user in `X-Service-User`). */
export async function getJson<T>(path: string, signal?: AbortSignal, headers: Record<string, string> = {}): Promise<T> {
  return answer<T>(await fetch(path, { headers: { accept: 'application/json', ...headers }, ...(signal ? { signal } : {}) }));
}

export async function sendJson<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const init: RequestInit = { method, headers: { accept: 'application/json', ...headers } };
  if (body !== undefined) {
    init.headers = { ...init.headers, 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  return answer<T>(await fetch(path, init));
}

/** Builds `path?query` from the defined, non-empty values. */
export function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** A multipart POST (a message or a run request with its files): the browser sets the content type and its boundary. */
export async function sendForm<T>(path: string, form: FormData): Promise<T> {
  return answer<T>(await fetch(path, { method: 'POST', headers: { accept: 'application/json' }, body: form }));
}

/** The form of a request with files: each field as text (objects JSON-encoded), each file as a `files` part. */
export function formWithFiles(fields: Record<string, unknown>, files: readonly File[]): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined) form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  for (const file of files) form.append('files', file, file.name);
  return form;
}
