import { copySqliteToPostgres, type CopyProgress } from '../store/copy/copy-sqlite-to-postgres.js';
import { CopyRefusedError, type CopyRefusal } from '../store/copy/copy-refused.js';
import { redactDatabaseUrl } from '../store/store-config.js';
import { CliError, EXIT_FAILURE, EXIT_USAGE } from '../terminal/cli-error.js';
import { writeLine, type OutputStream } from '../terminal/context.js';
import { countTableLines } from './count-table.js';
import { isLiveSupervisor } from './live-supervisor.js';

export interface MigrateOptions {
  sqlitePath: string;
  url: string;
  replace: boolean;
  /** The counts table. */
  stdout: OutputStream;
  /** A progress line per table, and one per `progressEvery` rows of a big one. */
  stderr: OutputStream;
  progressEvery?: number;
}

/** What to do next, after each refusal's own message. */
const nextSteps: Record<CopyRefusal, string> = {
  source_missing: 'name the install\'s database with --sqlite <file>, or set CAIRN_HOME to the home `cairn serve` used',
  source_unreadable: 'name a Cairn SQLite database with --sqlite <file>',
  source_in_use: 'stop that server (Ctrl-C where `cairn serve` runs, or kill -TERM its pid) and run `cairn migrate` again',
  target_unreachable: 'check the URL, that the server answers, that the database exists and that its user may create tables',
  target_in_use: 'stop every `cairn serve` on that database before copying into it',
  target_not_empty:
    'name an empty database (CREATE DATABASE ...) with --database-url or DATABASE_URL, or pass --replace to delete the data there and copy again',
  schema_mismatch: 'use the `cairn migrate` of the same Cairn version as the server that wrote the file',
};

/** `cairn migrate --from sqlite --to postgres`: copies, prints the counts, answers the exit code. */
export async function runMigrate(opts: MigrateOptions): Promise<number> {
  const where = redactDatabaseUrl(opts.url);
  const onProgress = ({ table, copied, total }: CopyProgress) =>
    writeLine(opts.stderr, copied < total ? `${table}: ${copied} of ${total} rows copied...` : `${table}: ${total} ${total === 1 ? 'row' : 'rows'} copied`);
  writeLine(opts.stderr, `Copying ${opts.sqlitePath} into ${where}`);
  let result;
  try {
    result = await copySqliteToPostgres({
      sqlitePath: opts.sqlitePath,
      url: opts.url,
      replace: opts.replace,
      isLive: (beat) => isLiveSupervisor(beat),
      onProgress,
      ...(opts.progressEvery !== undefined ? { progressEvery: opts.progressEvery } : {}),
    });
  } catch (err) {
    if (err instanceof CopyRefusedError) {
      const code = err.reason === 'source_missing' ? EXIT_USAGE : EXIT_FAILURE;
      throw new CliError(code === EXIT_USAGE ? 'USAGE' : 'MIGRATE_REFUSED', `${err.message}: ${nextSteps[err.reason]}. Nothing was copied.`, code);
    }
    throw new CliError('MIGRATE_FAILED', `the copy failed and was rolled back (${where} holds none of it): ${(err as Error).message}`, EXIT_FAILURE, {
      cause: err,
    });
  }
  for (const line of countTableLines(result.counts)) writeLine(opts.stdout, line);
  if (!result.committed) {
    const differ = result.counts.filter((c) => c.source !== c.target).map((c) => c.table);
    writeLine(opts.stderr, `cairn: the counts of ${differ.join(', ')} differ: the copy was rolled back and ${where} holds none of it.`);
    return EXIT_FAILURE;
  }
  const rows = result.counts.reduce((sum, c) => sum + c.source, 0);
  writeLine(
    opts.stdout,
    `\nCopied ${rows} rows; every count matches. Start the server on PostgreSQL with the same CAIRN_HOME and DATABASE_URL=${where}` +
      ` (the SQLite file is left as it was).`,
  );
  return 0;
}
