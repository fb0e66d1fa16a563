import fc from 'fast-check';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { requestFor, routeFuzzer, shapeKeys } from '../helpers/route-fuzz.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * For every route in fastify's own route table: requests built from the route's schemas and
 * mutations of them (test/helpers/route-fuzz.ts). Properties: never a 5xx; every error body is
 * `{ error, code, detail? }`; and a 4xx changes nothing (the database saw no commit, and no file
 * appeared in the home). `npm run bench -- fuzz` sends ten thousand and more.
 */

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  await writeHomeWorkflow(home, 'release', 'name: release\ndescription: r\ninputs:\n  version: { required: true }\nnodes:\n  - id: a\n    bash: "true"\n');
});
afterEach(async () => {
  await home.close();
});

it('answers every route’s generated and mutated requests with no 5xx, one error shape, and no change on a 4xx', async () => {
  const fuzzer = routeFuzzer(t.app, home);
  expect(fuzzer.routes.length).toBeGreaterThan(25);
  const schemas = new Map(fuzzer.routes.map((r) => [`${r.method} ${r.url}`, r.schema as Record<string, unknown>]));
  // The generators read the schemas: a route whose body or query fields were not found would only get noise.
  expect(shapeKeys(schemas.get('POST /api/workflows/:name/run')!.body)).toContain('inputs');
  expect(shapeKeys(schemas.get('GET /api/dashboard/runs')!.querystring)).toContain('search');
  for (const route of fuzzer.routes) {
    await fc.assert(
      fc.asyncProperty(requestFor(route.url, route.method, route.schema as Record<string, unknown>), async (request) => {
        const { verdict } = await fuzzer.send(request);
        expect(verdict).toBeUndefined();
      }),
      { numRuns: 25, seed: 20260301 },
    );
  }
}, 240_000);
