import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Settings } from '../shared/config.js';
import { silentLogger, type Logger } from '../shared/log.js';
import type { Store } from '../store/store.js';
import { WorkflowCatalog } from '../workflow/catalog/catalog.js';
import { errorHandlingOptions, registerErrorHandling, type RequestLimits } from './errors.js';
import { openApiRoutes, registerOpenApi } from './openapi.js';
import { readPackageName, readPackageVersion } from './package-version.js';
import { refuseUnknownQueryParameters } from './requests/strict-query.js';
import { recordRouteTable } from './route-table.js';
import { DEFAULT_NPM_REGISTRY, isPackagedBuild, UpdateChecker } from './update-check.js';
import { artifactRoutes } from './routes/artifacts.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { systemRoutes } from './routes/system.js';
import { doctorRoutes } from './routes/doctor.js';
import { CodebaseRegistry } from '../codebases/codebase-registry.js';
import { homePaths } from '../shared/paths.js';
import { codebaseRoutes } from './routes/codebases.js';
import { scheduleRoutes } from './routes/schedules.js';
import { hookRoutes } from './routes/hooks.js';
import { hookDeliveryRoutes } from './routes/hook-deliveries.js';
import { GitHubStatusFollower, type RetryPolicy } from '../github/status-follower.js';
import { resumeStatusComments } from '../github/status-resume.js';
import { commandRoutes } from './routes/commands.js';
import { conversationRoutes } from './routes/conversations.js';
import { conversationMessageRoutes } from './routes/conversation-message.js';
import { healthRoutes } from './routes/health.js';
import { providerRoutes } from './routes/providers.js';
import { providerModelRoutes } from './routes/provider-models.js';
import { configRoutes } from './routes/config.js';
import { aiPrefsRoutes } from './routes/ai-prefs.js';
import { authProviderRoutes } from './routes/auth-providers.js';
import { oauthRoutes } from './routes/oauth.js';
import { loadOAuthEndpoints } from '../credentials/oauth/oauth-endpoints.js';
import { SubscriptionLogin } from '../credentials/oauth/subscription-login.js';
import { runOperationRoutes } from './routes/run-operations.js';
import { fanOutRoutes } from './routes/fan-out.js';
import { runRoutes } from './routes/runs.js';
import { runDefinitionRoutes } from './routes/run-definition.js';
import { runDiffRoutes } from './routes/run-diff.js';
import { streamRoutes } from './routes/streams.js';
import { workflowEditRoutes } from './routes/workflow-edits.js';
import { workflowFileRoutes } from './routes/workflow-file.js';
import { workflowDryRunRoutes } from './routes/workflow-dry-run.js';
import { workflowRunRoutes } from './routes/workflow-run.js';
import { workflowRoutes } from './routes/workflows.js';
import { checkJsonDepth } from './requests/json-depth.js';
import { checkWellFormedText } from './requests/well-formed-text.js';
import { registerCallerChecks } from './callers/caller-checks.js';
import { defaultSseOptions, SseHub, type SseOptions } from './sse/sse-hub.js';
import { resolveStreamLimits } from './sse/stream-limits.js';
import { readOpenFilesLimit } from '../shared/open-files.js';
import { webPageRoutes } from './routes/web-pages.js';
import { readWebFiles } from './web-ui/web-files.js';
import { trackUnusedSockets } from './unused-sockets.js';

export interface ApiDeps {
  store: Store;
  settings: Settings;
  log?: Logger;
  /** Reported by `/api/health` and the OpenAPI document; defaults to package.json's. */
  version?: string;
  /** Milliseconds since the epoch (supervisor liveness, frame timestamps). */
  clock?: () => number;
  /** Largest accepted request body in bytes (default 1 MiB); larger bodies get a 413. */
  bodyLimit?: number;
  sse?: Partial<SseOptions>;
  /** Where workflows are found; defaults to the home's catalog with the bundled workflows. */
  catalog?: WorkflowCatalog;
  /**
   * `/api/update-check`: whether this is a packaged build (default: no `src/` beside `dist/`) and
   * the npm registry it asks (default `CAIRN_UPDATE_REGISTRY`, else registry.npmjs.org).
   */
  updateCheck?: { packaged?: boolean; registry?: string };
  /** The server's environment (credential detection, OAuth endpoint overrides); defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** The process's open-file limit the stream caps are derived from; defaults to the one read at start. */
  openFilesLimit?: number;
  /** The built dashboard's folder; defaults to the package's `dist/web/`. */
  webRoot?: string;
  /** How GitHub hooks retry a write GitHub may take later (default: 4 tries, waits from 1 s doubling). */
  githubRetry?: RetryPolicy;
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * The router's limit on one path segment. Ids and names are at most 200 characters (a
 * conversation id), three times that when percent-encoded, and each route's schema refuses a
 * longer one naming the field; this limit only stops absurd segments before routing (414).
 */
export const MAX_PARAM_LENGTH = 1024;

/**
 * Builds the API process's fastify app. It never listens: `main.ts` does, and tests use
 * `inject()` or `listen({ port: 0 })`. Closing the app ends every SSE stream.
 */
export async function buildServer(deps: ApiDeps): Promise<FastifyInstance> {
  const log = deps.log ?? silentLogger();
  const clock = deps.clock ?? Date.now;
  const version = deps.version ?? readPackageVersion();
  const limits: RequestLimits = { bodyLimit: deps.bodyLimit ?? DEFAULT_BODY_LIMIT, maxParamLength: MAX_PARAM_LENGTH };

  const app = Fastify({
    // Our pino and fastify's copy of pino's types differ only in generics; the object is pino.
    loggerInstance: log as unknown as FastifyBaseLogger,
    bodyLimit: limits.bodyLimit,
    routerOptions: { maxParamLength: limits.maxParamLength },
    ...errorHandlingOptions(log, limits),
    // Requests are logged once, at debug, by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    // close() lets in-flight requests finish and drops idle keep-alive sockets; SSE responses
    // are hijacked, so the hub ends them itself in preClose, after which their sockets are idle.
    forceCloseConnections: 'idle',
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  acceptJsonBodiesOnly(app);
  registerErrorHandling(app, log, limits);
  // First of all hooks: a request for another Host, or a write from another web page, runs nothing.
  registerCallerChecks(app, { listenHost: deps.settings.host, allowedHosts: deps.settings.allowedHosts }, log);
  refuseUnknownQueryParameters(app);
  recordRouteTable(app);
  app.addHook('onResponse', async (req, reply) => {
    log.debug({ method: req.method, url: req.url, status: reply.statusCode }, 'api.request_completed');
  });

  const streams = resolveStreamLimits(deps.settings.streams ?? {}, deps.openFilesLimit ?? readOpenFilesLimit());
  const { maxStreams, maxStreamsPerClient, openFilesLimit } = streams;
  if (streams.lowered) log.warn({ ...streams.lowered, descriptorCap: streams.descriptorCap, openFilesLimit }, 'api.stream_cap_lowered');
  log.info({ maxStreams, maxStreamsPerClient, openFilesLimit }, 'api.stream_limits');
  const sseOptions: SseOptions = { ...defaultSseOptions, maxStreams, maxStreamsPerClient, openFilesLimit, ...deps.sse };
  const hub = new SseHub(deps.store, log, sseOptions, clock);
  const unusedSockets = trackUnusedSockets(app.server);
  app.addHook('preClose', async () => {
    hub.close();
    unusedSockets.destroyAll();
  });

  await registerOpenApi(app, version);
  await app.register(openApiRoutes);
  await app.register(healthRoutes, {
    store: deps.store, settings: deps.settings, version, clock,
    streams: () => ({ open: hub.openStreams, max: sseOptions.maxStreams, maxPerClient: sseOptions.maxStreamsPerClient, openFilesLimit }),
  });
  const catalog = deps.catalog ?? WorkflowCatalog.forHome(deps.settings.home);
  await app.register(workflowRoutes, { catalog });
  await app.register(workflowEditRoutes, { catalog });
  await app.register(workflowFileRoutes, { catalog });
  await app.register(commandRoutes, { catalog });
  await app.register(providerRoutes);
  await app.register(providerModelRoutes, { settings: deps.settings, log });
  await app.register(configRoutes, { settings: deps.settings });
  await app.register(aiPrefsRoutes, { store: deps.store });
  await app.register(workflowRunRoutes, {
    store: deps.store, catalog, clock, paths: homePaths(deps.settings.home), bodyLimit: limits.bodyLimit, installKey: deps.settings.installKey,
  });
  await app.register(workflowDryRunRoutes, { store: deps.store, catalog, settings: deps.settings, clock });
  await app.register(runOperationRoutes, { store: deps.store, catalog });
  await app.register(fanOutRoutes, { store: deps.store });
  await app.register(runRoutes, { store: deps.store, paths: homePaths(deps.settings.home) });
  await app.register(runDefinitionRoutes, { store: deps.store });
  await app.register(runDiffRoutes, { store: deps.store });
  await app.register(streamRoutes, { hub, events: deps.store });
  const registry = new CodebaseRegistry({ store: deps.store, paths: homePaths(deps.settings.home), log, clock });
  await app.register(codebaseRoutes, { registry, clock });
  await app.register(scheduleRoutes, { store: deps.store, catalog, clock });
  await app.register(hookRoutes, { store: deps.store, catalog, installKey: deps.settings.installKey });
  const githubStatus = new GitHubStatusFollower({ store: deps.store, log, ...(deps.githubRetry ? { retry: deps.githubRetry } : {}) });
  app.addHook('preClose', () => githubStatus.close());
  // Once the server is ready: the status comments a previous API process left behind (in the background).
  app.addHook('onReady', async () => {
    void resumeStatusComments({ store: deps.store, installKey: deps.settings.installKey, follower: githubStatus, log, now: clock }).catch((err: unknown) =>
      log.warn({ err: (err as Error).message }, 'github.resume_failed'),
    );
  });
  await app.register(hookDeliveryRoutes, {
    store: deps.store, catalog, installKey: deps.settings.installKey, clock, follower: githubStatus, ...(deps.githubRetry ? { githubRetry: deps.githubRetry } : {}),
  });
  await app.register(conversationRoutes, { store: deps.store, clock });
  await app.register(conversationMessageRoutes, { store: deps.store, paths: homePaths(deps.settings.home), bodyLimit: limits.bodyLimit });
  await app.register(artifactRoutes, { store: deps.store, paths: homePaths(deps.settings.home) });
  await app.register(dashboardRoutes, { store: deps.store });
  const updates = new UpdateChecker({
    currentVersion: version,
    packageName: readPackageName(),
    packaged: deps.updateCheck?.packaged ?? isPackagedBuild(),
    registry: deps.updateCheck?.registry ?? (process.env.CAIRN_UPDATE_REGISTRY?.trim() || DEFAULT_NPM_REGISTRY),
    cacheFile: homePaths(deps.settings.home).updateCheck,
    clock,
    log,
  });
  await app.register(systemRoutes, { updates });
  const env = deps.env ?? process.env;
  await app.register(doctorRoutes, { paths: homePaths(deps.settings.home), env });
  await app.register(authProviderRoutes, { store: deps.store, installKey: deps.settings.installKey, providers: deps.settings.providers, env, log });
  const logins = new SubscriptionLogin({
    store: deps.store,
    installKey: deps.settings.installKey,
    endpoints: loadOAuthEndpoints(homePaths(deps.settings.home).config, env),
    now: clock,
    log,
  });
  await app.register(oauthRoutes, { logins });
  // Last: the dashboard answers every address the API does not (never an /api path).
  await app.register(webPageRoutes, { files: readWebFiles(deps.webRoot) });
  return app;
}

/**
 * JSON bodies go through fastify's own parser (prototype-poisoning safe); an empty body with a
 * JSON content type counts as no body, so `POST .../cancel` with a bare header is not an error.
 * Fastify also reads `text/plain` by default; no route takes text, so it is dropped and a text
 * body gets the 415 every other content type gets, rather than a 400 about the body's shape.
 * A body nested deeper than MAX_JSON_DEPTH is a 400 (json-depth.ts says why), and so is one with
 * a lone UTF-16 surrogate in any string (well-formed-text.ts), whichever route it is for.
 */
function acceptJsonBodiesOnly(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parseJson(req, text, (err: Error | null, parsed?: unknown) => {
      if (err) return done(err);
      try {
        checkJsonDepth(parsed);
        checkWellFormedText(parsed);
      } catch (refused) {
        return done(refused as Error);
      }
      done(null, parsed);
    });
  });
}
