/** Where a command writes; `process.stdout` satisfies it, and so does a string buffer in a test. */
export interface OutputStream {
  /** Text, or bytes (an artifact `cairn run artifacts` prints as it is). */
  write(chunk: string | Uint8Array): unknown;
  isTTY?: boolean;
}

/** Where a command reads a secret from; `process.stdin` satisfies it. */
export interface InputStream extends AsyncIterable<Buffer | string> {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/** Everything a command needs from its surroundings, passed in so tests can run commands in-process. */
export interface CliContext {
  stdout: OutputStream;
  stderr: OutputStream;
  env: NodeJS.ProcessEnv;
  /** The directory the user ran the command in. */
  cwd: string;
  /** The user's input, for a secret `cairn auth add` reads; absent when the command has none to read. */
  stdin?: InputStream;
  /** The user's input is a terminal: `cairn workflow run` then waits at a paused gate instead of exiting. */
  stdinIsTTY?: boolean;
  /** Registers a Ctrl-C handler while a command needs one; returns the function that removes it. */
  onInterrupt(handler: () => void): () => void;
}

/** Colour only on a terminal, and never when NO_COLOR is set to a non-empty value (no-color.org). */
export function isColorWanted(stream: OutputStream, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && !env.NO_COLOR;
}

/** Writes one line to a stream. */
export function writeLine(stream: OutputStream, line = ''): void {
  stream.write(`${line}\n`);
}
