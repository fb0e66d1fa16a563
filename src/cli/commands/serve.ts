import { createLogger } from '../../shared/log.js';
import { expectPositionals, parseCommandArgs, parsePort } from '../args.js';
import { usageError } from '../../terminal/cli-error.js';
import { databaseUrlFrom } from '../../shared/database-url.js';
import type { CliContext } from '../../terminal/context.js';
import { launch, serveRoles, type ServeRole } from '../../launcher/launcher.js';
import { isStartedByNpmScript, listenForStop, NPM_SIGNAL_ECHO_MS, type StopTrigger } from '../../launcher/stop-triggers.js';
import { printHelp, type Command } from './command.js';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'start the Cairn server (API and supervisor processes)',
  help: `Usage: cairn serve [--role all|api|supervisor] [--drain] [--port <port>]

Start the server: an API process and a supervisor process, restarted with back-off if either
dies. With --role, only one of them: several supervisors on several hosts can then share one
PostgreSQL database (DATABASE_URL), each taking over the runs of one that dies. The server's address is written to $CAIRN_HOME/run/server.json so the other commands find
it. Stop it with Ctrl-C or SIGTERM: running nodes are interrupted (they run again when the
server next starts) and everything is down within 10 seconds. Started by an npm script
(\`npm start\`), it also stops when npm exits, whatever stopped npm. The package's
node_modules/.bin (the bundled bun) is added to the end of its processes' PATH.

Options:
  --role <role>      all (default): the API and a supervisor; api: the API only; supervisor: a
                     supervisor only, which listens on no port. api and supervisor need
                     DATABASE_URL (see docs/postgres.md, "Several supervisors")
  --drain            on stop, let running nodes finish first (a second Ctrl-C stops at once)
  --port <port>      listen on this port (same as PORT). Default: PORT; else, inside a linked
                     git worktree, a free port in 3190-4089 chosen from the worktree's path;
                     else 3090
  -h, --help         show this help

Environment: CAIRN_HOME (default ~/.cairn), PORT, HOST (default 127.0.0.1; any other
address is reachable from other machines, and Cairn has no authentication: it warns at start),
CAIRN_ALLOWED_HOSTS (more names the server answers to, comma-separated name[:port]),
CAIRN_MAX_CONCURRENCY (default 8), CAIRN_LOG_LEVEL (default info), DATABASE_URL (a
postgres:// URL: keep everything in that PostgreSQL database instead of the SQLite file in
CAIRN_HOME; see docs/postgres.md).`,
  async run(argv: readonly string[], ctx: CliContext) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      drain: { type: 'boolean' },
      port: { type: 'string' },
      role: { type: 'string' },
    });
    if (values.help) return printHelp(ctx, this.help);
    expectPositionals(this.name, positionals, []);
    const port = parsePort(this.name, '--port', values.port);
    // A bad PORT is refused here as a usage error, like --port, before anything starts.
    if (port === undefined) parsePort(this.name, 'PORT', ctx.env.PORT);
    const databaseUrl = databaseUrlFrom(ctx.env.DATABASE_URL, (message) => usageError(`${message}.`, this.name));
    const role = roleOf(values.role, databaseUrl !== undefined, port !== undefined, this.name);
    const log = createLogger({ name: 'launcher', level: ctx.env.CAIRN_LOG_LEVEL });
    const launcher = launch({ role, drain: values.drain === true, env: ctx.env, cwd: ctx.cwd, port, out: ctx.stdout, log });
    let isStopping = false;
    const onStop = (trigger: StopTrigger) => {
      if (trigger.kind === 'signal') log.info({ signal: trigger.signal }, 'launcher.signal_received');
      else log.warn({ parentPid: trigger.parentPid }, 'launcher.parent_exited');
      // npm exiting while the server already stops is not a second request to force the stop.
      if (trigger.kind === 'parent_exited' && isStopping) return;
      isStopping = true;
      launcher.stop();
    };
    const underNpm = isStartedByNpmScript(ctx.env);
    const stopListening = listenForStop(onStop, { watchParent: underNpm, coalesceMs: underNpm ? NPM_SIGNAL_ECHO_MS : 0 });
    try {
      const [started, code] = await Promise.all([launcher.ready.then(() => undefined, (err: unknown) => err), launcher.done]);
      if (started !== undefined && code !== 0) throw started;
      return code;
    } finally {
      stopListening();
    }
  },
};

/** `--role`, checked: a role that splits the server needs a database every host can reach. */
function roleOf(raw: string | undefined, hasDatabaseUrl: boolean, hasPortOption: boolean, command: string): ServeRole {
  if (raw === undefined) return 'all';
  const role = serveRoles.find((r) => r === raw);
  if (!role) throw usageError(`--role must be one of ${serveRoles.join(', ')}, got '${raw}'.`, command);
  if (role !== 'all' && !hasDatabaseUrl) {
    throw usageError(
      `--role ${role} needs DATABASE_URL (a postgres:// URL): the SQLite file in CAIRN_HOME belongs to one machine's ` +
        'one server, so its API and supervisor cannot run apart. Set DATABASE_URL to a PostgreSQL database every host ' +
        'reaches (docs/postgres.md), or run `cairn serve` without --role.',
      command,
    );
  }
  if (role === 'supervisor' && hasPortOption) {
    throw usageError('--port has no use with --role supervisor: a supervisor listens on no port. Leave --port out.', command);
  }
  return role;
}
