import fc from 'fast-check';
import { makeTestApp } from '../test/helpers/app.js';
import { requestFor, routeFuzzer, type FuzzVerdict } from '../test/helpers/route-fuzz.js';
import { makeTempHome } from '../test/helpers/temp-home.js';
import { writeHomeWorkflow } from '../test/helpers/workflows.js';

/**
 * `npm run bench -- fuzz`: the route fuzz of test/api/bad-input-property.test.ts at bench size,
 * at least `total` requests spread over every route (seeded, so a run can be repeated), against
 * the real API over a real SQLite file. Prints what the answers were and every broken property.
 */

export interface RouteFuzzResult {
  routes: number;
  requests: number;
  byClass: Record<string, number>;
  broken: NonNullable<FuzzVerdict>[];
  perSecond: number;
}

export async function routeFuzz(total = 10_000, seed = 20261126): Promise<RouteFuzzResult> {
  const home = await makeTempHome();
  try {
    const { app } = await makeTestApp(home);
    await writeHomeWorkflow(home, 'release', 'name: release\ndescription: r\ninputs:\n  version: { required: true }\nnodes:\n  - id: a\n    bash: "true"\n');
    const fuzzer = routeFuzzer(app, home);
    const perRoute = Math.ceil(total / fuzzer.routes.length);
    const byClass: Record<string, number> = {};
    const broken: NonNullable<FuzzVerdict>[] = [];
    let requests = 0;
    const started = performance.now();
    for (const [i, route] of fuzzer.routes.entries()) {
      for (const request of fc.sample(requestFor(route.url, route.method, route.schema as Record<string, unknown>), { numRuns: perRoute, seed: seed + i })) {
        const { status, verdict } = await fuzzer.send(request);
        requests += 1;
        const cls = `${Math.floor(status / 100)}xx`;
        byClass[cls] = (byClass[cls] ?? 0) + 1;
        if (verdict) broken.push(verdict);
      }
      process.stderr.write(`\rfuzz: ${i + 1}/${fuzzer.routes.length} routes, ${requests} requests`);
    }
    process.stderr.write('\n');
    return { routes: fuzzer.routes.length, requests, byClass, broken, perSecond: requests / ((performance.now() - started) / 1000) };
  } finally {
    await home.close();
  }
}

export function formatRouteFuzzTable(r: RouteFuzzResult): string {
  const classes = Object.entries(r.byClass).sort().map(([k, v]) => `${k}: ${v}`).join(', ');
  const lines = [
    '## Route fuzz (every route, generated and mutated requests)\n',
    '| routes | requests | answers | 5xx | bad error shape | changed on a 4xx | requests/s |',
    '|---:|---:|---|---:|---:|---:|---:|',
    `| ${r.routes} | ${r.requests} | ${classes} | ${r.broken.filter((b) => b.kind === '5xx').length} | ${r.broken.filter((b) => b.kind === 'error-shape').length} | ${r.broken.filter((b) => b.kind === 'changed-on-4xx').length} | ${r.perSecond.toFixed(0)} |`,
  ];
  for (const b of r.broken.slice(0, 10)) lines.push(`\n- ${b.kind}: ${b.where}`);
  return `${lines.join('\n')}\n`;
}
