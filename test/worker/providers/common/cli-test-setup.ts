import { afterAll, afterEach, beforeEach } from 'vitest';
import { agentTask, scratch } from '../agent-harness.js';

type TaskOverrides = Parameters<typeof agentTask>[1];

/** A scripted model server as the helpers in test/helpers start them. */
interface ScriptedServer {
  url: string;
  close(): Promise<void>;
}

export interface CliTestSetup<Script, Server extends ScriptedServer> {
  /** The test's scratch folder (also the CLI's HOME unless the task says otherwise). */
  dir(): string;
  /** The server the test last started. */
  server(): Server;
  /** Starts the test's server with `script` (closed after the test, or when the next starts). */
  start(script: Script): Promise<Server>;
  /** Starts the server with `script` and returns an attempt task pointed at it; `overrides` win. */
  task(script: Script, overrides?: TaskOverrides): Promise<ReturnType<typeof agentTask>>;
}

/**
 * The setup every vendor CLI test repeats: a scratch folder per test, a scripted model server the
 * test starts with its own script, an attempt task for the provider pointed at that server (with
 * the test's own HOME, so the adapter never writes to the user's), and both gone after the test.
 * Call it at the top of a test file, or inside a `describe`, before the tests that use it.
 *
 * `start` starts the server for a script; `task` gives the provider's fields of the attempt
 * (provider, model, connection) for the started server and the scratch folder. A test that
 * builds its task itself starts the server with `start` and reads the folder with `dir`.
 */
export function cliTestSetup<Script, Server extends ScriptedServer>(spec: {
  start: (script: Script) => Promise<Server>;
  task?: (server: Server, dir: string) => TaskOverrides;
}): CliTestSetup<Script, Server> {
  let dir: ReturnType<typeof scratch> | undefined;
  let server: Server | undefined;
  beforeEach(() => {
    dir = scratch();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    dir?.cleanup();
    dir = undefined;
  });
  const start = async (script: Script): Promise<Server> => {
    await server?.close();
    server = await spec.start(script);
    return server;
  };
  const here = (): string => {
    if (dir === undefined) throw new Error('cliTestSetup: no test is running');
    return dir.dir;
  };
  return {
    dir: here,
    server: () => {
      if (server === undefined) throw new Error('cliTestSetup: this test started no server');
      return server;
    },
    start,
    async task(script, overrides = {}) {
      const started = await start(script);
      return agentTask(here(), { ...spec.task?.(started, here()), ...overrides });
    },
  };
}

/** The connection of a CLI pointed at `server` with `apiKey`, its HOME the test's folder. */
export function scriptedConnection(server: ScriptedServer, apiKey: string, home: string) {
  return { baseUrl: server.url, apiKey, env: { HOME: home } };
}

/**
 * One attempt that several tests read, where each checks another thing of the same plain run:
 * starting a vendor CLI costs seconds, and the suite's time is the project's tightest constraint.
 * It runs on the first test that asks (so any one of them also runs alone), in a scratch folder
 * of its own that stays, with the server `run` started, until the file's tests are over. Only
 * for runs whose every reader checks what the run did, never what another test changed.
 */
export function sharedAttempt<T>(run: (dir: string, keep: (server: ScriptedServer) => void) => Promise<T>): () => Promise<T & { dir: string }> {
  let done: Promise<T & { dir: string }> | undefined;
  let folder: ReturnType<typeof scratch> | undefined;
  const servers: ScriptedServer[] = [];
  afterAll(async () => {
    for (const server of servers.splice(0)) await server.close();
    folder?.cleanup();
  });
  return () => {
    done ??= (async () => {
      folder = scratch();
      const dir = folder.dir;
      return { ...(await run(dir, (server) => void servers.push(server))), dir };
    })();
    return done;
  };
}
