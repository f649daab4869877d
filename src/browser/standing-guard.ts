// Which navigation guard stays on a driver between calls: an Executor's URL policy is kept there
// from its first task until its close(), and act() puts it back after its own. Holds no browser state.

import type { NavigationGuard } from './types';

/** A guard an Executor keeps installed on a driver while no task of its runs. */
export interface StandingGuard {
  readonly guard: NavigationGuard;
  /**
   * False once its Executor closed while someone else held the driver: that holder (an act()
   * call, another Executor's task) removes it at its end instead of putting it back.
   */
  kept: boolean;
}

/**
 * The standing guard of each driver, for every copy of plannav in this process (like the driver
 * leases): an Executor of one copy and an act() of another must see the same entry.
 */
const standing: WeakMap<object, StandingGuard> = ((globalThis as Record<symbol, unknown>)[Symbol.for('plannav.standing-guards')] ??= new WeakMap()) as WeakMap<
  object,
  StandingGuard
>;

/** The guard kept on `driver` between calls, if any. */
export function standingGuardOf(driver: object): StandingGuard | undefined {
  return standing.get(driver);
}

/** Records `guard` as the one to keep on `driver` (it was just installed there); returns the entry. */
export function keepGuard(driver: object, guard: NavigationGuard): StandingGuard {
  const entry: StandingGuard = { guard, kept: true };
  standing.set(driver, entry);
  return entry;
}

/** Forgets the standing guard of `driver` when it is `entry` (or any, without `entry`). */
export function forgetGuard(driver: object, entry?: StandingGuard): void {
  if (entry === undefined || standing.get(driver) === entry) standing.delete(driver);
}
