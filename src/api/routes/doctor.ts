import type { AddressInfo } from 'node:net';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HomePaths } from '../../shared/paths.js';
import type { ServerTarget } from '../../doctor/server-check.js';

export interface DoctorRoutesOptions {
  paths: HomePaths;
  /** The server's own environment: the doctor checks what this server would use. */
  env: NodeJS.ProcessEnv;
}

const checkSchema = z.object({
  id: z.string().describe('Stable id: server, database, install-key, disk, config, provider.<id>.executable|credential|server'),
  name: z.string().describe('What a person reads: `claude executable`'),
  status: z.enum(['ok', 'warn', 'failed']),
  detail: z.string().describe('What was seen: paths, versions, addresses, where a credential comes from (never a secret)'),
  next: z.string().nullable().describe('What to do about it; null when the check is ok'),
});

/** `cairn doctor --json`'s object, field for field (src/doctor/report.ts builds both). */
const doctorReportSchema = z.object({
  home: z.string().describe('The CAIRN_HOME the server uses'),
  ok: z.boolean().describe('No check failed (warnings allowed)'),
  checks: z.array(checkSchema),
});

/**
 * The server as its own doctor sees it: the address it listens on (a wildcard listen address is
 * asked on loopback). Not listening (an `inject()` test) is no server at all.
 */
function ownAddress(address: string | AddressInfo | null): ServerTarget {
  const from = 'this server';
  if (address === null || typeof address === 'string') return { url: undefined, from };
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? (address.family === 'IPv6' ? '[::1]' : '127.0.0.1') : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { url: `http://${host}:${address.port}`, from };
}

/**
 * `GET /api/system/doctor`: every check of `cairn doctor`, run in the API process with its own
 * environment and home. The checks cost something (each provider CLI's `--version`), so they run
 * only when asked, and requests that arrive while a run of them is under way share its answer.
 * The doctor's code (and the adapters' executable lookups) loads on the first request: it only
 * looks; the API still never runs a node.
 */
export const doctorRoutes: FastifyPluginAsyncZod<DoctorRoutesOptions> = async (app, { paths, env }) => {
  let running: Promise<z.infer<typeof doctorReportSchema>> | undefined;
  const runChecks = async () => {
    const [{ runDoctor }, { doctorReportJson }] = await Promise.all([import('../../doctor/run-doctor.js'), import('../../doctor/report.js')]);
    const checks = await runDoctor({ paths, env, server: ownAddress(app.server.address()) });
    return doctorReportJson(paths.home, checks);
  };
  app.get(
    '/api/system/doctor',
    {
      schema: {
        tags: ['system'],
        summary: 'The checks of `cairn doctor`, as the server sees its install',
        description:
          'Runs every check of `cairn doctor` in the API process, with the server’s environment and CAIRN_HOME, and ' +
          'answers the object `cairn doctor --json` prints. The server check asks the server’s own address. Never a ' +
          'secret: a credential is named by where it comes from. Each call runs the checks again (each provider CLI’s ' +
          '`--version`, a few seconds at most); calls made while a run is under way share its answer. Always 200: ' +
          'ok false says a check failed.',
        response: { 200: doctorReportSchema },
      },
    },
    async () => {
      running ??= runChecks().finally(() => {
        running = undefined;
      });
      return running;
    },
  );
};
