import type { FastifyInstance, FastifySchema } from 'fastify';

/** One registered route as fastify added it: its methods, URL pattern and whether it is documented. */
export interface RouteEntry {
  method: string;
  url: string;
  hidden: boolean;
  /** The schemas the route validates with (params, querystring, body, response). */
  schema: FastifySchema;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route fastify registered, in order (HEAD twins of GET routes left out). */
    routeTable: readonly RouteEntry[];
  }
}

/**
 * Records fastify's route table as routes are added, so checks can walk what the server really
 * serves (the OpenAPI completeness test, the bad-input property test) rather than a list kept by hand.
 */
export function recordRouteTable(app: FastifyInstance): void {
  const entries: RouteEntry[] = [];
  app.decorate('routeTable', entries);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      const schema = route.schema ?? {};
      entries.push({ method, url: route.url, hidden: (schema as { hide?: boolean }).hide === true, schema });
    }
  });
}
