import { resolve } from 'node:path';
import { readLiveServerFile } from '../../launcher/run-dir.js';
import { homePaths, resolveHome } from '../../shared/paths.js';
import { CliError, usageError } from '../../terminal/cli-error.js';
import { expectPositionals, parseCommandArgs } from '../args.js';
import { printHelp, type Command } from './command.js';

const URL_SHAPE = 'a PostgreSQL URL such as postgres://user:password@host:5432/cairn';

export const migrateCommand: Command = {
  name: 'migrate',
  summary: "copy an install's data from its SQLite file into PostgreSQL",
  help: `Usage: cairn migrate --from sqlite --to postgres [--sqlite <file>] [--database-url <url>] [--replace]

Copy everything an install keeps in its SQLite file (runs and their events and jobs, codebases
and worktree records, conversations and messages, schedules, preferences, node sessions, sealed
credentials, copied sealed as they are) into a PostgreSQL database, in one transaction: on any
error, or when a table's count in PostgreSQL differs from SQLite's, nothing is kept there. Then
print each table's rows in both and exit 0 only when every count matches. The SQLite file is
left as it was; start \`cairn serve\` with the same CAIRN_HOME and DATABASE_URL to use the copy.

Refused (exit 1, nothing copied) while a server uses the SQLite file (the home's run/server.json
names a live launcher, or a supervisor's heartbeat in the file is fresh) or the PostgreSQL
database, and when the database already holds Cairn data, unless --replace. Progress goes to
stderr (a line per table, and one per 50000 rows of a big one); the password of the URL is
never printed. See docs/postgres.md, "Moving an install to PostgreSQL".

Options:
  --from sqlite         where the data is (only sqlite)
  --to postgres         where it goes (only postgres)
  --sqlite <file>       the SQLite file. Default: the one \`cairn serve\` uses,
                        $CAIRN_HOME/db/cairn.sqlite (CAIRN_HOME default ~/.cairn)
  --database-url <url>  the PostgreSQL database (postgres://user:password@host:port/database).
                        Default: DATABASE_URL. It must exist; its tables are created if missing
  --replace             delete the Cairn data the database holds (in the same transaction) and
                        copy again, instead of refusing it
  -h, --help            show this help

Exit status: 0 when every count matches, 1 when refused or a count differs (rolled back),
2 on a usage error (a missing or bad flag, no URL, no SQLite file there).`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      from: { type: 'string' },
      to: { type: 'string' },
      sqlite: { type: 'string' },
      'database-url': { type: 'string' },
      replace: { type: 'boolean' },
    });
    if (values.help) return printHelp(ctx, this.help);
    expectPositionals(this.name, positionals, []);
    if (values.from !== 'sqlite') throw usageError(`--from must be sqlite${values.from === undefined ? '' : `, got '${values.from}'`}.`, this.name);
    if (values.to !== 'postgres') throw usageError(`--to must be postgres${values.to === undefined ? '' : `, got '${values.to}'`}.`, this.name);
    const url = databaseUrlOf(values['database-url'], ctx.env.DATABASE_URL, this.name);
    const paths = homePaths(resolveHome(ctx.env));
    const sqlitePath = values.sqlite !== undefined ? resolve(ctx.cwd, values.sqlite) : paths.database;
    // The home's own file: its launcher says so first. A file named with --sqlite is judged by
    // the heartbeats inside it (and its write lock), whoever started the server.
    const running = values.sqlite === undefined ? readLiveServerFile(paths) : undefined;
    if (running) {
      throw new CliError(
        'MIGRATE_REFUSED',
        `a Cairn server (launcher pid ${running.pid}, ${running.url}) is running for ${paths.home} and uses ${sqlitePath}: ` +
          'stop that server (Ctrl-C where `cairn serve` runs, or kill -TERM its pid) and run `cairn migrate` again. Nothing was copied.',
      );
    }
    // The store's copy (and through it the SQLite and PostgreSQL drivers) loads only when a copy runs.
    const { runMigrate } = await import('../../migrate/run-migrate.js');
    return runMigrate({ sqlitePath, url, replace: values.replace === true, stdout: ctx.stdout, stderr: ctx.stderr, progressEvery: 50_000 });
  },
};

/** --database-url, else DATABASE_URL; a URL that is not PostgreSQL's is a usage error that never quotes it (it may hold a password). */
function databaseUrlOf(flag: string | undefined, env: string | undefined, command: string): string {
  const [raw, from] = flag !== undefined ? [flag, '--database-url'] : [env, 'DATABASE_URL'];
  if (raw === undefined || raw.trim() === '') {
    throw usageError(`Name the PostgreSQL database to copy into: --database-url <url> or DATABASE_URL (${URL_SHAPE}).`, command);
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw.trim());
  } catch {
    parsed = undefined;
  }
  if (!parsed || !/^postgres(ql)?:$/i.test(parsed.protocol) || parsed.hostname === '') throw usageError(`${from} must be ${URL_SHAPE}.`, command);
  return raw.trim();
}
