import { isWorthWaitingFor } from '../../shared/store-faults.js';

/**
 * A store fault (a full disk) after an attempt's start was recorded. Such an attempt did begin:
 * it is kept and continued (`NodeAttempt.continued`) once the store takes writes again, rather
 * than left without an end beside a new attempt.
 */
export class StartedAttemptDeferred extends Error {
  constructor(readonly fault: unknown) {
    super((fault as Error | undefined)?.message ?? String(fault), { cause: fault });
    this.name = 'StartedAttemptDeferred';
  }
}

/** Runs what follows an attempt's recorded start: a store fault in it keeps the attempt (StartedAttemptDeferred). */
export async function afterStartRecorded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw isWorthWaitingFor(err) ? new StartedAttemptDeferred(err) : err;
  }
}
