import { ProviderRates } from './provider-rates.js';
import { Slots } from './slots.js';

/**
 * The engine's three limits, each a `Slots` (slots.ts), taken by a node in this order as it
 * starts: its provider's slot (a scheduler's pass parks it in that line, holding nothing else),
 * then its run's slot, then a global one (waiting in line for it). Each is held until the
 * attempt's process has exited and its record is written, so "a limit of 2" means two in flight,
 * never three. What a node holds while it waits for the next one is what /api/health reports.
 */

/** The key of the global limit (`concurrency.max`): attempts in flight in this supervisor. */
export const GLOBAL_KEY = 'global';
export const GLOBAL_SLOT: readonly string[] = [GLOBAL_KEY];
/** The key of a run's own limit (`concurrency.perRun`), in the run's own `Slots`. */
export const RUN_SLOT: readonly string[] = ['run'];

/**
 * How many places at the head of each provider's line, and of the global line, have their
 * position kept current: a waiter among them is woken (and its run records its new place)
 * whenever the line moves. Those further back keep the position recorded when they started
 * waiting until they come this near, so a 1000-node fan-out writes at most
 * 1 + QUEUE_POSITIONS_SHOWN `provider_queued` (or `global_queued`) events per node, never one per
 * node for every slot released.
 */
export const QUEUE_POSITIONS_SHOWN = 10;

/**
 * Whether a waiter's place is worth a new event: when it joins the line, and when it moved to
 * another place within the first QUEUE_POSITIONS_SHOWN (`shown`: the place it last recorded).
 */
export function placeWorthRecording(position: number, newlyQueued: boolean, shown: number | undefined): boolean {
  return newlyQueued || (position !== shown && position <= QUEUE_POSITIONS_SHOWN);
}

/** The global limit (`concurrency.max`); its line's head learns when its place moves (`global_queued`). */
export function globalSlots(limit: number): Slots {
  return new Slots({ limitOf: () => limit, knownKeys: GLOBAL_SLOT, alsoWake: QUEUE_POSITIONS_SHOWN });
}

/**
 * A run's own limit: the scheduler takes a slot for each node it launches (except nodes that only
 * wait for other runs), and an in-run fan-out takes one for each instance it runs, so a fan-out
 * inside a run stays inside the run's limit. A freed slot goes to a waiting instance first, else
 * the scheduler is told (`onFree`).
 */
export function runSlots(limit: number): Slots {
  return new Slots({ limitOf: () => limit, knownKeys: RUN_SLOT });
}

/**
 * Per-provider limits (`concurrency.providers.<id>`), keyed by provider id and shared by every
 * run of the supervisor, with each provider's rate budget (`providers.rates`): a slot needs both
 * a free place and room in the minute. A provider without a limit still has its calls counted.
 */
export function providerSlots(limits: Readonly<Record<string, number>> = {}, rates: ProviderRates = new ProviderRates()): Slots {
  return new Slots({
    limitOf: (provider) => limits[provider],
    knownKeys: Object.keys(limits),
    alsoWake: QUEUE_POSITIONS_SHOWN,
    budget: {
      room: (provider) => rates.room(provider),
      took: (provider) => rates.started(provider),
      gaveBack: (provider, tokens) => rates.used(provider, tokens),
      msUntilRoom: (provider) => rates.msUntilRoom(provider),
    },
  });
}
