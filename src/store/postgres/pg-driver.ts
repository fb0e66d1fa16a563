import { createRequire } from 'node:module';
import type pg from 'pg';

let driver: typeof pg | undefined;

/**
 * The `pg` driver, loaded the first time a PostgreSQL store needs it. A `require` through
 * `createRequire` is one the bundler leaves alone, so the driver stays out of the bundles every
 * process and worker thread loads at start: a SQLite install (the default) never pays for it
 * (about 35-55 ms of CPU in each process and worker thread before).
 */
export function pgDriver(): typeof pg {
  driver ??= createRequire(import.meta.url)('pg') as typeof pg;
  return driver;
}
