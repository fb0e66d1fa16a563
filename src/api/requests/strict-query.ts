import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

/**
 * Every route refuses a query parameter it does not read, with a 400 naming it and the ones it
 * accepts: a misspelt filter (`?stauts=failed`) would otherwise answer as if it were not there.
 * Done once, as routes are added: each route's query schema (none means "no parameters") becomes
 * strict, so the same schema validates, refuses and is described in `/api/openapi.json`.
 */
export function refuseUnknownQueryParameters(app: FastifyInstance): void {
  // GET and its HEAD twin share one schema object: made strict once.
  const strict = new WeakSet<object>();
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ??= {});
    const given = schema.querystring;
    if (given !== undefined && (strict.has(given as object) || !(given instanceof z.ZodObject))) return;
    const shape = given instanceof z.ZodObject ? (given.shape as z.ZodRawShape) : {};
    const accepted = Object.keys(shape);
    const where = route.url;
    schema.querystring = z.strictObject(shape, {
      error: (iss) =>
        iss.code === 'unrecognized_keys'
          ? `Unknown query parameter ${iss.keys.map((k) => `'${String(k)}'`).join(', ')}; ` +
            (accepted.length ? `${where} accepts ${accepted.join(', ')}` : `${where} takes no query parameters`)
          : 'The query string must be name=value pairs',
    });
    strict.add(schema.querystring as object);
  });
}
