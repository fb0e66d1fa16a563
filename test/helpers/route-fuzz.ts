import { existsSync, readdirSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { z } from 'zod';
import type { TempHome } from './temp-home.js';

/**
 * The route fuzz shared by the test (a few hundred requests) and the bench (ten thousand and
 * more): for every route in fastify's own route table, requests built from the route's schemas
 * (its path, query and body fields) and mutations of them (wrong types, hostile and over-long
 * strings, unknown fields and query parameters, broken JSON, other content types). Each answer
 * is checked: never a 5xx; every error body is `{ error, code, detail? }`; and a 4xx changes
 * nothing (the database saw no commit, and no file appeared in the home).
 */

/** The streams never end by themselves; their refusals are covered in test/api/sse-*.test.ts. */
export const isFuzzedRoute = (url: string) => !url.startsWith('/api/stream/');

const hostile = fc.oneof(
  fc.string(),
  fc.constantFrom('..', '../..', '%2e%2e', '.env', 'a/b', '\\', '\u0000', ' ', 'release', 'x'.repeat(300), '%', '%%', '__proto__', 'constructor'),
  fc.string({ minLength: 1, maxLength: 3 }).map((s) => s.repeat(400)),
);
const value = fc.oneof(hostile, fc.integer(), fc.boolean(), fc.constant(null), fc.array(hostile, { maxLength: 3 }), fc.dictionary(hostile, hostile, { maxKeys: 3 }));

/** The field names of a route's body or query schema (through optional/default/pipe wrappers). */
export function shapeKeys(schema: unknown): string[] {
  let current = schema as z.ZodType | undefined;
  while (current && !(current instanceof z.ZodObject)) {
    const def = (current as { def?: { innerType?: z.ZodType; in?: z.ZodType } }).def;
    current = def?.innerType ?? def?.in;
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

export interface FuzzRequest {
  method: string;
  url: string;
  payload?: { type: string; text: string };
}

/** Requests for one route, from its schema. */
export function requestFor(url: string, method: string, schema: Record<string, unknown>): fc.Arbitrary<FuzzRequest> {
  const paramNames = [...url.matchAll(/:(\w+)|\*/g)].map((m) => m[1] ?? '*');
  const queryKeys = shapeKeys(schema.querystring);
  const bodyKeys = shapeKeys(schema.body);
  const body = fc.oneof(
    fc.record(Object.fromEntries(bodyKeys.map((k) => [k, value])), { requiredKeys: [] }),
    fc.dictionary(hostile, value, { maxKeys: 3 }),
    value,
  );
  return fc
    .record({
      params: fc.tuple(...paramNames.map(() => hostile)),
      query: fc.oneof(fc.record(Object.fromEntries(queryKeys.map((k) => [k, hostile])), { requiredKeys: [] }), fc.dictionary(hostile, hostile, { maxKeys: 2 })),
      payload: fc.oneof(
        body.map((b) => ({ type: 'application/json', text: JSON.stringify(b) ?? '' })),
        fc.string().map((text) => ({ type: 'application/json', text: `{${text}` })),
        fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x').map((type) => ({ type, text: 'a=1' })),
        fc.constant(undefined),
      ),
    })
    .map(({ params, query, payload }) => {
      let i = 0;
      const path = url.replace(/:(\w+)|\*/g, () => encodeURIComponent(String(params[i++] ?? '')) || 'x');
      const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)] as [string, string])).toString();
      return { method, url: search ? `${path}?${search}` : path, ...(payload ? { payload } : {}) };
    });
}

/** What one answer broke, or undefined when it kept every property. */
export type FuzzVerdict = { kind: '5xx' | 'error-shape' | 'changed-on-4xx'; where: string } | undefined;

/**
 * Sends requests to `app` (in-process, `inject`) and judges each answer against the database
 * (`data_version` of a second, read-only connection) and the home's folders.
 */
export function routeFuzzer(app: FastifyInstance, home: TempHome) {
  const probe = new Database(home.paths.database, { readonly: true });
  home.defer(() => probe.close());
  const homeFiles = (): string[] => {
    const list = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).sort() : []);
    return [...list(home.paths.workflows), ...list(home.paths.workspaces), ...list(home.paths.uploads)];
  };
  const routes = app.routeTable.filter((r) => isFuzzedRoute(r.url));
  return {
    routes,
    async send(request: FuzzRequest): Promise<{ status: number; verdict: FuzzVerdict }> {
      const version = probe.pragma('data_version', { simple: true });
      const files = homeFiles();
      const res = await app.inject({
        method: request.method as 'GET',
        url: request.url,
        ...(request.payload ? { payload: request.payload.text, headers: { 'content-type': request.payload.type } } : {}),
      });
      const where = `${request.method} ${request.url.slice(0, 200)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
      if (res.statusCode >= 500) return { status: res.statusCode, verdict: { kind: '5xx', where } };
      if (res.statusCode >= 400) {
        let body: Record<string, unknown>;
        try {
          body = res.json() as Record<string, unknown>;
        } catch {
          return { status: res.statusCode, verdict: { kind: 'error-shape', where } };
        }
        const extra = Object.keys(body).filter((k) => !['error', 'code', 'detail', 'errors'].includes(k));
        if (extra.length > 0 || typeof body.error !== 'string' || typeof body.code !== 'string') return { status: res.statusCode, verdict: { kind: 'error-shape', where } };
        const changed = probe.pragma('data_version', { simple: true }) !== version || JSON.stringify(homeFiles()) !== JSON.stringify(files);
        if (changed) return { status: res.statusCode, verdict: { kind: 'changed-on-4xx', where } };
      }
      return { status: res.statusCode, verdict: undefined };
    },
  };
}
