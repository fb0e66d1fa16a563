import { readdirSync, existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { z } from 'zod';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * For every route in fastify's own route table: requests built from the route's schemas (its
 * path, query and body fields) and mutations of them (wrong types, hostile and over-long strings,
 * unknown fields and query parameters, broken JSON, other content types). Properties: never a
 * 5xx; every error body is `{ error, code, detail? }`; and a 4xx changes nothing (the database
 * saw no commit, and no file appeared in the home).
 */

let home: TempHome;
let t: TestApp;
let probe: Database.Database;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  await writeHomeWorkflow(home, 'release', 'name: release\ndescription: r\ninputs:\n  version: { required: true }\nnodes:\n  - id: a\n    bash: "true"\n');
  probe = new Database(home.paths.database, { readonly: true });
  home.defer(() => probe.close());
});
afterEach(async () => {
  await home.close();
});

/** The streams never end by themselves; their refusals are covered in test/api/sse-*.test.ts. */
const skipped = (url: string) => url.startsWith('/api/stream/');

const hostile = fc.oneof(
  fc.string(),
  fc.constantFrom('..', '../..', '%2e%2e', '.env', 'a/b', '\\', '\u0000', ' ', 'release', 'x'.repeat(300), '%', '%%', '__proto__', 'constructor'),
  fc.string({ minLength: 1, maxLength: 3 }).map((s) => s.repeat(400)),
);
const value = fc.oneof(hostile, fc.integer(), fc.boolean(), fc.constant(null), fc.array(hostile, { maxLength: 3 }), fc.dictionary(hostile, hostile, { maxKeys: 3 }));

function shapeKeys(schema: unknown): string[] {
  let current = schema as z.ZodType | undefined;
  while (current && !(current instanceof z.ZodObject)) {
    const def = (current as { def?: { innerType?: z.ZodType; in?: z.ZodType } }).def;
    current = def?.innerType ?? def?.in;
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

const requestFor = (url: string, method: string, schema: Record<string, unknown>) => {
  const paramNames = [...url.matchAll(/:(\w+)|\*/g)].map((m) => m[1] ?? '*');
  const queryKeys = shapeKeys(schema.querystring);
  const bodyKeys = shapeKeys(schema.body);
  const body = fc.oneof(
    fc.record(Object.fromEntries(bodyKeys.map((k) => [k, value])), { requiredKeys: [] }),
    fc.dictionary(hostile, value, { maxKeys: 3 }),
    value,
  );
  return fc.record({
    params: fc.tuple(...paramNames.map(() => hostile)),
    query: fc.oneof(fc.record(Object.fromEntries(queryKeys.map((k) => [k, hostile])), { requiredKeys: [] }), fc.dictionary(hostile, hostile, { maxKeys: 2 })),
    payload: fc.oneof(
      body.map((b) => ({ type: 'application/json', text: JSON.stringify(b) ?? '' })),
      fc.string().map((text) => ({ type: 'application/json', text: `{${text}` })),
      fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x').map((type) => ({ type, text: 'a=1' })),
      fc.constant(undefined),
    ),
  }).map(({ params, query, payload }) => {
    let i = 0;
    const path = url.replace(/:(\w+)|\*/g, () => encodeURIComponent(String(params[i++] ?? '')) || 'x');
    const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)] as [string, string])).toString();
    return { method, url: search ? `${path}?${search}` : path, payload };
  });
};

function homeFiles(): string[] {
  const list = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).sort() : []);
  return [...list(home.paths.workflows), ...list(home.paths.workspaces), ...list(home.paths.uploads)];
}

it('answers every route’s generated and mutated requests with no 5xx, one error shape, and no change on a 4xx', async () => {
  const routes = t.app.routeTable.filter((r) => !skipped(r.url));
  expect(routes.length).toBeGreaterThan(25);
  const schemas = new Map(routes.map((r) => [`${r.method} ${r.url}`, r.schema as Record<string, unknown>]));
  // The generators read the schemas: a route whose body or query fields were not found would only get noise.
  const run = schemas.get('POST /api/workflows/:name/run')!;
  expect(shapeKeys(run.body)).toContain('inputs');
  expect(shapeKeys(schemas.get('GET /api/dashboard/runs')!.querystring)).toContain('search');
  for (const route of routes) {
    const schema = schemas.get(`${route.method} ${route.url}`)!;
    await fc.assert(
      fc.asyncProperty(requestFor(route.url, route.method, schema), async (request) => {
        const version = probe.pragma('data_version', { simple: true });
        const files = homeFiles();
        const res = await t.app.inject({
          method: request.method as 'GET',
          url: request.url,
          ...(request.payload ? { payload: request.payload.text, headers: { 'content-type': request.payload.type } } : {}),
        });
        const where = `${request.method} ${request.url.slice(0, 200)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
        expect(res.statusCode, where).toBeLessThan(500);
        if (res.statusCode >= 400) {
          const body = res.json();
          expect(Object.keys(body).filter((k) => !['error', 'code', 'detail', 'errors'].includes(k)), where).toEqual([]);
          expect(typeof body.error === 'string' && typeof body.code === 'string', where).toBe(true);
          expect(probe.pragma('data_version', { simple: true }), where).toBe(version);
          expect(homeFiles(), where).toEqual(files);
        }
      }),
      { numRuns: 25, seed: 20260301 },
    );
  }
}, 240_000);
