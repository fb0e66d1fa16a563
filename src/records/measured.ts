import type { Measured, Unavailable, UnavailableReason } from './schemas/measured-value.js';

/** A value the provider reported. A reported zero is a value, not a missing one. */
export function provided<T>(value: T): { source: 'provider'; value: T } {
  return { source: 'provider', value };
}

/** A measurement with no value, and why. */
export function unavailable(reason: UnavailableReason): Unavailable {
  return { source: 'unavailable', reason };
}

export function isProvided<T>(measured: Measured<T>): measured is { source: 'provider'; value: T } {
  return measured.source === 'provider';
}

/** The reported value, or undefined — never a zero standing in for a missing value. */
export function valueOf<T>(measured: Measured<T>): T | undefined {
  return measured.source === 'provider' ? measured.value : undefined;
}
