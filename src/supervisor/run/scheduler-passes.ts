import { isWorthWaitingFor } from '../../shared/store-faults.js';
import type { NewRunEvent } from '../../store/schemas/event.js';
import type { Store } from '../../store/store.js';
import type { RunWriteFaults } from './write-faults.js';

/**
 * The scheduling passes of one run: a pass is asked for (`kick`) whenever something may have
 * changed (an attempt ended, a slot freed, a timer fired), any number of times; passes never
 * overlap, and a kick that comes while one runs gets another pass after it, so none is lost.
 */
export class SchedulerPasses {
  private dirty = false;
  private pumping: Promise<void> | undefined;

  constructor(
    /** One pass; it handles its own failures (it never rejects). */
    private readonly pass: () => Promise<void>,
    /** The run's end is reached: no pass is run any more. */
    private readonly ended: () => boolean,
  ) {}

  /** Asks for one more pass. */
  kick(): void {
    this.dirty = true;
    if (this.pumping) return;
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      // A kick that came after the pass's last check, before this callback, found a pass still
      // set and started none: take it now, or the run would wait for a kick that never comes.
      if (this.dirty && !this.ended()) this.kick();
    });
  }

  /** Resolves once no pass is running or asked for. */
  async idle(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  private async pump(): Promise<void> {
    while (this.dirty && !this.ended()) {
      this.dirty = false;
      await this.pass();
    }
  }
}

/** What one scheduling pass does, in order. */
export interface PassSteps {
  /** The skip records of the candidates decided now (candidate-decider.ts). */
  decide(): NewRunEvent[];
  writeFaults: RunWriteFaults;
  store: Pick<Store, 'appendEvents'>;
  /** Launches ready nodes, unless the run is stopping or its budget is reached. */
  launch(): void;
  /** Ends, pauses or lets the run sleep once nothing of it runs (run-finish.ts). */
  finish(): Promise<void>;
  /** The pass failed with a bug or a broken store: the run fails. */
  fail(err: unknown): void;
}

/**
 * One pass: decides the candidates and commits their skip records (durable before any dependant
 * acts on them), launches what is ready, and ends the run when nothing is left. A store that
 * refuses the records for now (a full disk) has the pass tried again later, the records kept.
 */
export function schedulingPass(steps: PassSteps): () => Promise<void> {
  return async () => {
    let decided: NewRunEvent[] = [];
    try {
      decided = steps.writeFaults.withUnwritten(steps.decide());
      if (decided.length) {
        await steps.store.appendEvents(decided);
        steps.writeFaults.succeeded();
      }
      decided = [];
      steps.launch();
      await steps.finish();
    } catch (err) {
      if (isWorthWaitingFor(err)) return steps.writeFaults.passRefused(err, decided);
      steps.fail(err);
    }
  };
}
