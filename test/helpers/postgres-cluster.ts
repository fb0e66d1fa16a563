import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { appendFile, chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** Where Debian's `postgresql` package puts each major version's server binaries. */
const debianRoot = '/usr/lib/postgresql';
/** The database user the tests connect as (trusted: the cluster listens on 127.0.0.1, and on test hosts' gateways when asked). */
const testUser = 'cairn';

/**
 * A throwaway PostgreSQL cluster for one test file: `initdb` into a temp dir, started on a free
 * port of 127.0.0.1 with durability off (fsync, synchronous_commit, full_page_writes: a test's
 * data need not survive a crash), trust auth for the test user. One per file, because initdb
 * costs seconds; each test gets a database cloned from a template (`createDatabase`).
 */
export interface PostgresCluster {
  port: number;
  /** `postgres://cairn@127.0.0.1:<port>/<database>`. */
  urlOf(database: string): string;
  /** Runs one statement as the test user in the `postgres` database. */
  admin(sql: string): Promise<void>;
  /** Creates an empty database (`CREATE DATABASE`), optionally from a template; answers its URL. */
  createDatabase(name: string, template?: string): Promise<string>;
  /** `pg_ctl restart -m fast`: every connection is cut, the server comes back on the same port. */
  restart(): Promise<void>;
  /** Stops the server (fast shutdown: connections are cut) and keeps its data, until `startUp()`. */
  shutDown(): Promise<void>;
  /** Starts the server stopped by `shutDown()` again, on the same port with the same data. */
  startUp(): Promise<void>;
  /** Stops the server (fast shutdown) and removes its directory. */
  stop(): Promise<void>;
}

/** The newest installed major version's bin directory, or a clear error naming the package to install. */
export function postgresBinDir(): string {
  const versions = existsSync(debianRoot)
    ? readdirSync(debianRoot).filter((v) => /^\d+$/.test(v) && existsSync(join(debianRoot, v, 'bin', 'initdb')))
    : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) {
    throw new Error(
      `PostgreSQL's server binaries (initdb, pg_ctl) are not installed under ${debianRoot}/<version>/bin: ` +
        'install the Debian package `postgresql` (apt-get install postgresql) to run the PostgreSQL store tests.',
    );
  }
  return join(debianRoot, newest, 'bin');
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a server binary; as root through `runuser -u postgres`, since postgres refuses to run as root. */
async function asServerUser(bin: string, args: readonly string[]): Promise<void> {
  const [file, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, [...args]];
  try {
    await run(file, argv, { timeout: 60_000 });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`${bin} ${args.join(' ')} failed: ${(err as Error).message}\n${stdout ?? ''}\n${stderr ?? ''}`);
  }
}

/**
 * Starts a cluster. Call `stop()` after the file (afterAll). `listen` adds addresses of this
 * machine to listen on besides 127.0.0.1 (the test hosts' gateways, test/helpers/net-hosts.ts),
 * each trusted for its /30 only.
 */
export async function startPostgresCluster(opts: { listen?: readonly string[] } = {}): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const dir = await mkdtemp(join(tmpdir(), 'cairn-pg-'));
  const data = join(dir, 'data');
  if (isRoot()) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  await chmod(dir, 0o700);
  await asServerUser(join(bin, 'initdb'), ['-D', data, '-U', testUser, '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const listen = opts.listen ?? [];
  // The hosts' own addresses (.2 of each gateway's /30), trusted as 127.0.0.1 is.
  if (listen.length > 0) await appendFile(join(data, 'pg_hba.conf'), listen.map((a) => `host all all ${a.replace(/\.1$/, '.2')}/32 trust\n`).join(''));
  const port = await freePort();
  const options = [
    `-p ${port}`, `-c listen_addresses=${['127.0.0.1', ...listen].join(',')}`, `-c unix_socket_directories=${dir}`,
    '-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off', '-c max_connections=200',
  ].join(' ');
  const start = () => asServerUser(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start']);
  const shutDown = () => asServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
  await start();

  const urlOf = (database: string) => `postgres://${testUser}@127.0.0.1:${port}/${database}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: urlOf('postgres') });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    port,
    urlOf,
    admin,
    async createDatabase(name, template) {
      await admin(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
      return urlOf(name);
    },
    async restart() {
      await shutDown();
      await start();
    },
    shutDown,
    startUp: start,
    async stop() {
      try {
        // Not running when a test failed while it was shut down.
        if (existsSync(join(data, 'postmaster.pid'))) await asServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
