import { providerSlots } from '../../../src/supervisor/run/engine-slots.js';
import type { ProviderRates } from '../../../src/supervisor/run/provider-rates.js';
import type { SlotHold } from '../../../src/supervisor/run/slots.js';

/**
 * The supervisor's per-provider slots (engine-slots.ts), asked the way a scheduler's pass asks
 * them (one provider per node, a ticket per node), with each provider's slots given back oldest
 * first, so a test reads as "a call started, a call ended".
 */
export function providerSlotsDriver(limits: Readonly<Record<string, number>> = {}, rates?: ProviderRates) {
  const slots = providerSlots(limits, rates);
  const holds = new Map<string, SlotHold[]>();
  return {
    slots,
    tryAcquire(provider: string, ticket: object, wake: () => void) {
      const answer = slots.tryAcquire([provider], ticket, wake);
      if (!answer.acquired) return answer;
      holds.set(provider, [...(holds.get(provider) ?? []), answer.hold]);
      return { acquired: true as const };
    },
    /** One call of `provider` ended (having used `tokens`). */
    release(provider: string, tokens?: number) {
      holds.get(provider)?.shift()?.release(tokens);
    },
    stats: () => slots.stats(),
  };
}
