import { isWorthWaitingFor, storeFaultOf, type StoreFault } from '../../shared/store-faults.js';

/** An attempt that could not begin for a reason waiting may mend: it did not start, nothing ran. */
export class Deferred extends Error {
  constructor(readonly fault: StoreFault) {
    super(fault.message);
  }
}

/**
 * Before an attempt's program runs, a write the disk (or a database held busy) refused does not
 * fail the node: the attempt is reported not started, with the fault, and the supervisor side
 * runs it again once writes go through. Anything else is thrown on.
 */
export function deferIfWorthWaiting(err: unknown): never {
  if (isWorthWaitingFor(err)) throw new Deferred(storeFaultOf(err, 'start a node'));
  throw err;
}
