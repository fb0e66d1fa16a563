import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { CairnError } from './errors.js';
import { homePaths, resolveHome } from './paths.js';

/** The install config file `$CAIRN_HOME/config.yaml`; only the keys the server reads itself. */
const installConfigSchema = z
  .object({
    concurrency: z
      .object({
        max: z.number().int().positive().optional(),
        perRun: z.number().int().positive().optional(),
      })
      .partial()
      .optional(),
  })
  .loose();

export const DEFAULT_MAX_CONCURRENCY = 8;
export const DEFAULT_PORT = 3090;

export interface Settings {
  home: string;
  paths: ReturnType<typeof homePaths>;
  /** Explicit PORT, or undefined to let the launcher choose (3090, or 3190–4089 in a worktree). */
  port: number | undefined;
  host: string;
  maxConcurrency: number;
  perRunConcurrency: number;
}

function positiveInt(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new CairnError('CONFIG_INVALID', `${name} must be a positive integer, got '${raw}'`);
  }
  return value;
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

/** Reads settings from the environment, then `$CAIRN_HOME/config.yaml`, then defaults. */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const home = resolveHome(env);
  const paths = homePaths(home);
  const file = readInstallConfig(paths.config);
  const maxConcurrency =
    positiveInt('CAIRN_MAX_CONCURRENCY', env.CAIRN_MAX_CONCURRENCY) ??
    file.concurrency?.max ??
    DEFAULT_MAX_CONCURRENCY;
  const perRun =
    positiveInt('CAIRN_MAX_CONCURRENCY_PER_RUN', env.CAIRN_MAX_CONCURRENCY_PER_RUN) ??
    file.concurrency?.perRun ??
    maxConcurrency;
  return {
    home,
    paths,
    port: positiveInt('PORT', env.PORT),
    host: env.HOST?.trim() || '127.0.0.1',
    maxConcurrency,
    perRunConcurrency: Math.min(perRun, maxConcurrency),
  };
}
