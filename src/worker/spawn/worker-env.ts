let baseEnv: Readonly<Record<string, string | undefined>> | undefined;

/**
 * The worker's environment as a plain object, copied once per thread: reading `process.env`
 * goes through an accessor per key (about 30 µs for a typical environment, on every attempt
 * otherwise), and nothing in a worker thread changes its environment after it starts. A child's
 * environment is this plus its task's `env`.
 */
export function workerEnv(): Readonly<Record<string, string | undefined>> {
  baseEnv ??= { ...process.env };
  return baseEnv;
}
