import { killChoices, type KillChoice } from '../../stress/kill-record.js';
import { renderStressReport, stressReportJson } from '../../stress/report.js';
import { canMountSmallDisk } from '../../stress/small-disk.js';
import { runStress, SMALL_DISK_MB } from '../../stress/stress-run.js';
import { MIN_NODES } from '../../stress/workflows.js';
import { expectPositionals, parseCommandArgs, parsePositiveInt } from '../args.js';
import { usageError } from '../../terminal/cli-error.js';
import { isColorWanted, writeLine } from '../../terminal/context.js';
import { createStyle } from '../../terminal/format.js';
import { printHelp, printJson, type Command } from './command.js';

const DEFAULTS = { nodes: 8, runs: 6, kills: 5, kill: 'random' as KillChoice };

function parseWhole(command: string, flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value)) throw usageError(`--${flag} must be a whole number (0 or more), got '${raw}'.`, command);
  return value;
}

export const stressCommand: Command = {
  name: 'stress',
  summary: 'prove an install: run mixed workflows while killing server processes, then check',
  help: `Usage: cairn stress [--nodes <n>] [--runs <n>] [--kill supervisor|api|launcher|helper|random] [--kills <n>] [--seed <n>] [--disk-full] [--json] [--url <url>]

Start a server of its own (\`cairn serve\` on a scratch CAIRN_HOME in a temp folder, a free
port, and a local stand-in for the Anthropic Messages API), run mixed workflows on it (bash
fan-outs and chains, waits, approval gates it answers, a child run, an in-run fan-out, AI nodes
on the stand-in), SIGKILL server processes at seeded random moments (the launcher is started
again on the same home), then check: every run completed (a failed one is resumed and counted),
every node's success recorded exactly once, re-runs only of nodes in flight at a kill, no node
or run failed because of a kill, each run's events in order and the server's log without a
hole, every kill landed, and no process left behind once the server stopped. Prints a table,
the counts (with the uncaught crashes in the server's log) and the server's memory after start
and before stop. A line per batch and kill goes to stderr. The scratch home is removed when every check holds, kept (and named) otherwise.

Options:
  --nodes <n>        top-level nodes per run, at least ${MIN_NODES}. Default ${DEFAULTS.nodes}
  --runs <n>         runs to start, in batches between the kills. Default ${DEFAULTS.runs}
  --kill <kind>      what to kill: supervisor, api, launcher, helper (a spawn helper of the
                     supervisor), or random (a seeded pick of the four). Default ${DEFAULTS.kill}
  --kills <n>        how many kills (0 for none). Default ${DEFAULTS.kills}
  --seed <n>         the seed of workflows, kill targets and moments. Default: a new one, printed
  --disk-full        put the scratch home on a small disk (a ${SMALL_DISK_MB} MB tmpfs, so it needs root) and
                     fill it to the last byte once per batch, at a seeded moment, for a seeded 1-3 s:
                     /health/db must say "Disk full", the runs must wait (none may fail), writes
                     must work again once the space is back, and the database must pass
                     integrity_check. Without kills, the runs come in three batches
  --json             print one JSON object (checks, counts, kills, memory) instead of tables
  --url <url>        stress a server that is already running instead: no kills (refused with
                     --kill/--kills), no AI nodes, no process check; its workflows are saved as
                     stress-* in that server's home
  -h, --help         show this help

Exit status: 0 when every check holds, 1 when one failed (each failed check is named with what
to look at next), 2 on a usage error.`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      nodes: { type: 'string' },
      runs: { type: 'string' },
      kill: { type: 'string' },
      kills: { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'boolean' },
      url: { type: 'string' },
      'disk-full': { type: 'boolean' },
    });
    if (values.help) return printHelp(ctx, this.help);
    expectPositionals(this.name, positionals, []);
    const nodes = parsePositiveInt(this.name, 'nodes', values.nodes) ?? DEFAULTS.nodes;
    if (nodes < MIN_NODES) throw usageError(`--nodes must be at least ${MIN_NODES} (start, end and two more), got '${values.nodes}'.`, this.name);
    const runs = parsePositiveInt(this.name, 'runs', values.runs) ?? DEFAULTS.runs;
    if (values.kill !== undefined && !(killChoices as readonly string[]).includes(values.kill)) {
      throw usageError(`--kill must be one of ${killChoices.join(', ')}, got '${values.kill}'.`, this.name);
    }
    if (values.url !== undefined && (values.kill !== undefined || values.kills !== undefined)) {
      throw usageError('--kill and --kills need the server cairn stress starts itself: with --url it kills nothing it did not start. Leave out --url, or --kill and --kills.', this.name);
    }
    const diskFull = values['disk-full'] === true;
    if (diskFull && values.url !== undefined) {
      throw usageError('--disk-full fills the disk of the server cairn stress starts itself: it fills no disk it did not mount. Leave out --url, or --disk-full.', this.name);
    }
    if (diskFull && !canMountSmallDisk()) {
      throw usageError('--disk-full mounts a small disk (a tmpfs) for the scratch home, and mounting needs root: run cairn stress as root, or leave out --disk-full.', this.name);
    }
    const kills = values.url !== undefined ? 0 : parseWhole(this.name, 'kills', values.kills, DEFAULTS.kills);
    const seed = parseWhole(this.name, 'seed', values.seed, Math.floor(Math.random() * 2 ** 31));
    const kill = (values.kill as KillChoice | undefined) ?? DEFAULTS.kill;
    const result = await runStress(
      { nodes, runs, kill, kills, seed, url: values.url, diskFull },
      { env: ctx.env, progress: (line) => writeLine(ctx.stderr, line) },
    );
    if (values.json) printJson(ctx, stressReportJson(result));
    else for (const line of renderStressReport(result, createStyle(isColorWanted(ctx.stdout, ctx.env)))) writeLine(ctx.stdout, line);
    return result.ok ? 0 : 1;
  },
};
