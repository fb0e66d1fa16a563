import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * A supervisor process's id, `sup-<host>-<pid>-<8 hex>`: never reused, so a run's owner also
 * tells one holding of it from the next, and it names the host whose processes that holder ran.
 */
export function newSupervisorId(host = hostname(), pid = process.pid): string {
  return `sup-${host}-${pid}-${randomUUID().slice(0, 8)}`;
}

/** The host a supervisor id names, or undefined for an id of another form (one a test chose). */
export function hostOfSupervisorId(id: string): string | undefined {
  return /^sup-(.+)-\d+-[0-9a-f]{8}$/.exec(id)?.[1];
}

/**
 * Whether the processes a supervisor started can be signalled from here: it ran on this host, or
 * its id does not say where (then it is taken to be here, as with one supervisor). A process id
 * from another host names nothing here, or an unrelated program.
 */
export function ranOnThisHost(supervisorId: string | null, host = hostname()): boolean {
  if (supervisorId === null) return true;
  const named = hostOfSupervisorId(supervisorId);
  return named === undefined || named === host;
}
