import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { loadAddressSettings, positiveIntFromEnv, type AddressSettings } from './env-settings.js';
import { databaseUrlFrom } from './database-url.js';
import { CairnError } from './errors.js';
import { ALLOWED_HOSTS_CONFIG_KEY, ALLOWED_HOSTS_ENV, parseAllowedHosts, type HostAndPort } from './host-names.js';
import { lazyInstallKey, type InstallKey } from './secrets/install-key.js';
import { assistantConfigSchema, resolveProviderSettings, type ProviderSettings } from './providers/provider-settings.js';

export { DEFAULT_PORT } from './env-settings.js';

/** How long a webhook delivery's record is kept by default (`webhooks.deliveryRetentionDays`). */
export const DEFAULT_HOOK_DELIVERY_RETENTION_DAYS = 30;
/** A century: enough for "keep them", small enough that the cutoff stays a date. */
const MAX_HOOK_DELIVERY_RETENTION_DAYS = 36_500;

const retentionDaysText = `must be a whole number of days from 1 to ${MAX_HOOK_DELIVERY_RETENTION_DAYS}, such as 30`;

/** The install config file `$CAIRN_HOME/config.yaml`; only the keys the server reads itself. */
const installConfigSchema = z
  .object({
    concurrency: z
      .object({
        max: z.number().int().positive().optional(),
        perRun: z.number().int().positive().optional(),
        /** Attempts in flight per provider id, at most (on top of the global and per-run limits). */
        providers: z.record(z.string(), z.number().int().positive()).optional(),
        /** Calls started per provider id in any 60 s, at most. */
        requestsPerMinute: z.record(z.string(), z.number().int().positive()).optional(),
        /** Tokens (input + output, as reported) per provider id in any 60 s before another call starts. */
        tokensPerMinute: z.record(z.string(), z.number().int().positive()).optional(),
      })
      .partial()
      .optional(),
    webhooks: z
      .object({
        /** Days a webhook delivery's id is remembered (its record kept) after it was received. */
        deliveryRetentionDays: z
          .number({ error: retentionDaysText })
          .int({ error: retentionDaysText })
          .min(1, { error: retentionDaysText })
          .max(MAX_HOOK_DELIVERY_RETENTION_DAYS, { error: retentionDaysText })
          .optional(),
      })
      .loose()
      .optional(),
    defaultAssistant: z.string().trim().min(1).optional(),
    assistants: z.record(z.string(), assistantConfigSchema).optional(),
    server: z
      .object({
        /** More names the API answers to (`name[:port]`), beside loopback and the listen address. */
        allowedHosts: z.array(z.string(), { error: 'must be a list of host names, such as [cairn.example.com]' }).optional(),
        /** SSE streams served at once, in all and per client address (api/sse/stream-limits.ts). */
        maxStreams: z.number().int().positive().optional(),
        maxStreamsPerClient: z.number().int().positive().optional(),
      })
      .loose()
      .optional(),
  })
  .loose();

export const DEFAULT_MAX_CONCURRENCY = 8;
/** A run whose waits all end further away than this is let go to sleep (no scheduler, timer or lease). */
export const DEFAULT_WAIT_SLEEP_AFTER_MS = 30_000;

export interface Settings extends AddressSettings {
  maxConcurrency: number;
  perRunConcurrency: number;
  /**
   * A run whose only pending work is `wait` nodes waking later than this (ms) sleeps: it is let go
   * with a durable wake-up instead of a timer in memory (`CAIRN_WAIT_SLEEP_AFTER_MS`).
   */
  waitSleepAfterMs: number;
  /** How long a store operation waits out a database another process keeps busy before 503 STORE_UNAVAILABLE (`CAIRN_STORE_BUSY_MS`); unset: about 30 s. */
  storeBusyMs?: number;
  /**
   * `DATABASE_URL`: a `postgres://` URL makes every process use that PostgreSQL database instead
   * of the SQLite file in CAIRN_HOME (docs/postgres.md). Unset: SQLite.
   */
  databaseUrl?: string;
  /** AI providers: default assistant, models, connections, per-provider limits, watchdogs. */
  /** Provider settings as they were read at start (limits and rates apply from start to stop). */
  providers: ProviderSettings;
  /**
   * Provider settings as `config.yaml` reads now (the environment as at start still wins): what a
   * run or chat turn starting now connects with, so an edited `assistants.<id>.baseUrl`, `apiKey`
   * or binary path applies from the next run on without a restart. A file that no longer reads
   * leaves the last good ones (the run's AI nodes then fail on it, naming the file).
   */
  providersNow(): ProviderSettings;
  /**
   * The install key (shared/secrets), loaded on first call: from TOKEN_ENCRYPTION_KEY, else the
   * key file, created then. The API and the supervisor call it at start, so a bad key stops them there.
   */
  installKey: () => InstallKey;
  /**
   * Names (with an optional port) the API answers to beside the loopback names and the address
   * it listens on: `CAIRN_ALLOWED_HOSTS` when set, else `server.allowedHosts` in config.yaml.
   */
  allowedHosts: readonly HostAndPort[];
  /**
   * Caps on the API's SSE streams as configured (`CAIRN_MAX_STREAMS` and
   * `CAIRN_MAX_STREAMS_PER_CLIENT`, else `server.maxStreams` and `server.maxStreamsPerClient`);
   * unset ones are derived from the API process's open-file limit when it starts.
   */
  streams: { max?: number; maxPerClient?: number };
  /**
   * Days the supervisor keeps a webhook delivery's record (and so remembers its id) after it was
   * received: `webhooks.deliveryRetentionDays`, default 30.
   */
  hookDeliveryRetentionDays: number;
}

function readInstallConfig(path: string): z.infer<typeof installConfigSchema> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  const parsed = installConfigSchema.safeParse(parse(text) ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CairnError(
      'CONFIG_INVALID',
      `${path}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`.trim(),
    );
  }
  return parsed.data;
}

/** `CAIRN_ALLOWED_HOSTS` (comma-separated) when set, else the config file's `server.allowedHosts`. */
function readAllowedHosts(env: NodeJS.ProcessEnv, file: z.infer<typeof installConfigSchema>): HostAndPort[] {
  const fromEnv = env[ALLOWED_HOSTS_ENV];
  const [entries, setting] =
    fromEnv !== undefined && fromEnv.trim() !== ''
      ? [fromEnv.split(','), ALLOWED_HOSTS_ENV]
      : [file.server?.allowedHosts ?? [], ALLOWED_HOSTS_CONFIG_KEY];
  const { hosts, problem } = parseAllowedHosts(entries, setting);
  if (problem) throw new CairnError('CONFIG_INVALID', problem);
  return hosts;
}

/** The configured stream caps: each environment variable over its config key. */
function readStreamCaps(env: NodeJS.ProcessEnv, file: z.infer<typeof installConfigSchema>): Settings['streams'] {
  const max = positiveIntFromEnv('CAIRN_MAX_STREAMS', env.CAIRN_MAX_STREAMS) ?? file.server?.maxStreams;
  const maxPerClient = positiveIntFromEnv('CAIRN_MAX_STREAMS_PER_CLIENT', env.CAIRN_MAX_STREAMS_PER_CLIENT) ?? file.server?.maxStreamsPerClient;
  return { ...(max !== undefined ? { max } : {}), ...(maxPerClient !== undefined ? { maxPerClient } : {}) };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** Reads settings from the environment, then `$CAIRN_HOME/config.yaml`, then defaults. */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const address = loadAddressSettings(env);
  const file = readInstallConfig(address.paths.config);
  const maxConcurrency =
    positiveIntFromEnv('CAIRN_MAX_CONCURRENCY', env.CAIRN_MAX_CONCURRENCY) ??
    file.concurrency?.max ??
    DEFAULT_MAX_CONCURRENCY;
  const perRun =
    positiveIntFromEnv('CAIRN_MAX_CONCURRENCY_PER_RUN', env.CAIRN_MAX_CONCURRENCY_PER_RUN) ??
    file.concurrency?.perRun ??
    maxConcurrency;
  const providers = providerSettingsOf(file, env);
  let lastGood = providers;
  return {
    ...address,
    allowedHosts: readAllowedHosts(env, file),
    streams: readStreamCaps(env, file),
    hookDeliveryRetentionDays: file.webhooks?.deliveryRetentionDays ?? DEFAULT_HOOK_DELIVERY_RETENTION_DAYS,
    maxConcurrency,
    perRunConcurrency: Math.min(perRun, maxConcurrency),
    installKey: lazyInstallKey({ env, file: address.paths.installKey }),
    waitSleepAfterMs: positiveIntFromEnv('CAIRN_WAIT_SLEEP_AFTER_MS', env.CAIRN_WAIT_SLEEP_AFTER_MS) ?? DEFAULT_WAIT_SLEEP_AFTER_MS,
    ...optional('storeBusyMs', positiveIntFromEnv('CAIRN_STORE_BUSY_MS', env.CAIRN_STORE_BUSY_MS)),
    ...optional('databaseUrl', databaseUrlFrom(env.DATABASE_URL, (message) => new CairnError('CONFIG_INVALID', message))),
    providers,
    providersNow() {
      try {
        lastGood = providerSettingsOf(readInstallConfig(address.paths.config), env);
      } catch (err) {
        if (!(err instanceof CairnError)) throw err;
      }
      return lastGood;
    },
  };
}

/** The provider part of the install config, with the environment over it. */
function providerSettingsOf(file: z.infer<typeof installConfigSchema>, env: NodeJS.ProcessEnv): ProviderSettings {
  return resolveProviderSettings(
    {
      ...(file.defaultAssistant !== undefined ? { defaultAssistant: file.defaultAssistant } : {}),
      ...(file.assistants !== undefined ? { assistants: file.assistants } : {}),
      ...(file.concurrency?.providers !== undefined ? { providerLimits: file.concurrency.providers } : {}),
      ...(file.concurrency?.requestsPerMinute !== undefined ? { requestsPerMinute: file.concurrency.requestsPerMinute } : {}),
      ...(file.concurrency?.tokensPerMinute !== undefined ? { tokensPerMinute: file.concurrency.tokensPerMinute } : {}),
    },
    env,
  );
}
