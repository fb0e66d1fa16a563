import { artifactListResponseSchema } from '../../wire/artifacts.js';
import { expectPositionals, parseCommandArgs } from '../args.js';
import { CliError, usageError } from '../../terminal/cli-error.js';
import { writeLine, type CliContext, type OutputStream } from '../../terminal/context.js';
import { formatTable, formatTimestamp } from '../../terminal/format.js';
import { MIN_RUN_ID_PREFIX, resolveRunId } from '../run-id.js';
import { printHelp, printJson, serverOptionsHelp, type Command } from './command.js';
import { clientFor, urlOption } from './server-flags.js';

/** How much of the start of a file is looked at for a NUL byte, as git does to tell binary from text. */
export const BINARY_SNIFF_BYTES = 8000;

/** Binary by git's rule: a NUL byte among the first 8000 bytes. */
export function looksBinary(head: Uint8Array): boolean {
  return head.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/**
 * The artifact's name as the listing gives it: a relative path with `/` between folders. A name
 * the server would refuse (absolute, `.`/`..` or dot segments, a backslash, a NUL) is refused
 * here, before anything is sent: `..` would be folded away by URL parsing and reach another route.
 */
function checkArtifactName(name: string, command: string): string[] {
  const segments = name.split('/');
  if (name.startsWith('/') || /[\\\0]/.test(name) || segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw usageError(
      `'${name}' is not an artifact name: give the path \`cairn run artifacts <id>\` lists (relative, no '.' or '..' parts).`,
      command,
    );
  }
  return segments;
}

const artifactPath = (runId: string, segments: readonly string[]) =>
  `/api/artifacts/${encodeURIComponent(runId)}/${segments.map(encodeURIComponent).join('/')}`;

/** Writes one chunk, waiting while a pipe's buffer is full (a large artifact through `| less`). */
async function writeChunk(stream: OutputStream, chunk: Uint8Array): Promise<void> {
  const full = stream.write(chunk) === false;
  const drainable = stream as OutputStream & { once?: (event: 'drain', listener: () => void) => unknown };
  if (full && typeof drainable.once === 'function') await new Promise<void>((resolve) => drainable.once!('drain', resolve));
}

/**
 * Prints an artifact's bytes as they are. Bytes that look binary are refused on a terminal
 * unless `force`, as git does; through a pipe or into a file they are always written.
 */
async function printArtifact(ctx: CliContext, res: Response, name: string, force: boolean): Promise<void> {
  const reader = res.body?.getReader();
  if (!reader) return;
  const head: Uint8Array[] = [];
  let headSize = 0;
  let done = false;
  while (!done && headSize < BINARY_SNIFF_BYTES) {
    const next = await reader.read();
    if (next.done) done = true;
    else {
      head.push(next.value);
      headSize += next.value.byteLength;
    }
  }
  const first = Buffer.concat(head);
  if (ctx.stdout.isTTY === true && !force && looksBinary(first)) {
    await reader.cancel();
    throw new CliError(
      'USAGE',
      `'${name}' is binary and stdout is a terminal, where it would garble the screen. ` +
        'Redirect it to a file (`> file`) or a pipe, or pass --force to print it anyway.',
    );
  }
  if (first.byteLength) await writeChunk(ctx.stdout, first);
  while (!done) {
    const next = await reader.read();
    if (next.done) done = true;
    else await writeChunk(ctx.stdout, next.value);
  }
}

export const runArtifactsCommand: Command = {
  name: 'run artifacts',
  summary: "list a run's artifacts, or print one",
  help: `Usage: cairn run artifacts <id> [<name>] [--force] [--json] [--url <url>]

Without <name>: list the files the run's nodes wrote to $ARTIFACTS_DIR (path, size in bytes,
last change); dotfiles and dot-folders are left out. Only a run on a codebase with an owner/repo
id lists its artifacts; another run shows none.
With <name> (a path as the list shows it): print that file to stdout, byte for byte. A file that
looks binary (a NUL byte in its first ${BINARY_SNIFF_BYTES} bytes, git's rule) is refused when stdout is a
terminal, unless --force; redirect it to a file or a pipe instead. <id> is the whole run id or
its first ${MIN_RUN_ID_PREFIX} or more characters, as for \`cairn run get\`.

Options:
  --force            print a binary artifact to a terminal anyway
  --json             without <name>: print the server's JSON ({ files: [{ path, size, modifiedAt }] })
${serverOptionsHelp}`,
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(this.name, argv, {
      force: { type: 'boolean' },
      json: { type: 'boolean' },
      ...urlOption,
    });
    if (values.help) return printHelp(ctx, this.help);
    const [given, name] = positionals.length > 1 ? expectPositionals(this.name, positionals, ['id', 'name']) : expectPositionals(this.name, positionals, ['id']);
    const segments = name === undefined ? undefined : checkArtifactName(name, this.name);
    if (segments && values.json) throw usageError('--json applies to the list; an artifact is printed as it is.', this.name);
    const client = clientFor(ctx, values.url);
    const id = await resolveRunId(client, given!, this.name);
    if (segments) {
      const res = await client.download(artifactPath(id, segments)).catch((err: unknown) => {
        if (err instanceof CliError && err.message.startsWith('Artifact not found')) {
          throw new CliError(err.code, `${err.message}. \`cairn run artifacts ${given}\` lists the run's artifacts.`);
        }
        throw err;
      });
      await printArtifact(ctx, res, name!, values.force === true);
      return 0;
    }
    const { raw, body } = await client.request('GET', `/api/runs/${encodeURIComponent(id)}/artifacts`, artifactListResponseSchema);
    if (values.json) return printJson(ctx, raw);
    if (body.files.length === 0) {
      writeLine(
        ctx.stdout,
        `Run ${id} has no artifacts to list. A run lists the files its nodes write to $ARTIFACTS_DIR when it runs on a codebase with an owner/repo id.`,
      );
      return 0;
    }
    const rows = body.files.map((f) => [f.path, String(f.size), formatTimestamp(f.modifiedAt)]);
    for (const line of formatTable(['PATH', 'SIZE', 'MODIFIED'], rows)) writeLine(ctx.stdout, line);
    return 0;
  },
};
