import { readLiveServerFile } from '../../launcher/run-dir.js';
import type { ServerTarget } from '../../doctor/server-check.js';
import { homePaths, resolveHome, type HomePaths } from '../../shared/paths.js';
import { expectPositionals, parseCommandArgs } from '../args.js';
import { CliError } from '../../terminal/cli-error.js';
import { isColorWanted, writeLine } from '../../terminal/context.js';
import { createStyle } from '../../terminal/format.js';
import { resolveServerAddress } from '../server-address.js';
import { printHelp, printJson, type Command } from './command.js';

/** Where the doctor looks for the server: as every command does, but a bad CAIRN_URL is a finding, not a usage error. */
function serverTarget(flag: string | undefined, env: NodeJS.ProcessEnv, paths: HomePaths): ServerTarget {
  if (flag !== undefined) return { url: resolveServerAddress({ flag, env }).url, from: '--url' };
  if (env.CAIRN_URL?.trim()) {
    try {
      return { url: resolveServerAddress({ env }).url, from: 'CAIRN_URL' };
    } catch (err) {
      if (err instanceof CliError) return { url: undefined, from: 'CAIRN_URL', problem: err.message };
      throw err;
    }
  }
  const running = readLiveServerFile(paths);
  if (running) return { url: running.url.replace(/\/+$/, ''), from: paths.serverFile, launcherPid: running.pid };
  return { url: undefined, from: paths.serverFile };
}

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check an install: server, database, install key, disk, each AI provider',
  help: `Usage: cairn doctor [--json] [--url <url>]

Check this install and say what to do about each problem: whether a server runs for CAIRN_HOME
and answers (GET /api/health); whether the database opens, answers a query and takes a write
(through the running server's GET /health/db, else opened read-only); the install key (present,
valid, mode 0600); free space on the home's disk (warn under 1 GiB, FAILED under 100 MiB); the
config the server would start with; and for each AI provider: the executable it would run (the
configured *_BIN_PATH or config key, the npm package next to Cairn, else PATH) and its
\`--version\`, where its credential comes from (never the secret), and whether its configured
server (a base URL) answers. Uses this shell's environment, as \`cairn serve\` started here would.

One line per check: ok, warn or FAILED, what was seen, and for anything not ok what to do next.
A CLI that is not installed is a warning, unless it is the default assistant (then FAILED).

Options:
  --json             print one JSON object: home, ok, checks (id, name, status ok|warn|failed,
                     detail, next)
  --url <url>        the server to check. Default: CAIRN_URL, else the server running for
                     CAIRN_HOME (its run/server.json)
  -h, --help         show this help

Exit status: 0 when no check FAILED (warnings included), 1 when one did, 2 on a usage error.`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, { json: { type: 'boolean' }, url: { type: 'string' } });
    if (values.help) return printHelp(ctx, this.help);
    expectPositionals(this.name, positionals, []);
    const paths = homePaths(resolveHome(ctx.env));
    const server = serverTarget(values.url, ctx.env, paths);
    // The checks (and through them the SQLite driver and the adapters' lookups) load only when the doctor runs.
    const { runDoctor } = await import('../../doctor/run-doctor.js');
    const { doctorReportJson, renderDoctorReport } = await import('../../doctor/report.js');
    const checks = await runDoctor({ paths, env: ctx.env, server });
    if (values.json) printJson(ctx, doctorReportJson(paths.home, checks));
    else for (const line of renderDoctorReport(checks, createStyle(isColorWanted(ctx.stdout, ctx.env)))) writeLine(ctx.stdout, line);
    return checks.some((c) => c.status === 'failed') ? 1 : 0;
  },
};
