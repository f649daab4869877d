// Pause, resume and cancel for one run (an Executor's task, a collection): a pause is a promise the
// loop awaits (no polling), and a cancel aborts the run's AbortSignal, which every wait, model call and action races.

import { RequestCancelledError } from '../errors';
import { raceAbort, throwIfAborted } from './abort';

/** The control state of the running task. */
export class TaskControl {
  private controller = new AbortController();
  private pauseGate: { promise: Promise<void>; release: () => void } | undefined;

  /** The running task's signal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get cancelled(): boolean {
    return this.controller.signal.aborted;
  }

  /** Starts a fresh task: a new signal, not paused. */
  reset(): void {
    this.controller = new AbortController();
    this.pauseGate?.release();
    this.pauseGate = undefined;
  }

  /** Returns false when already paused. */
  pause(): boolean {
    if (this.pauseGate) return false;
    let release = (): void => undefined;
    const promise = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.pauseGate = { promise, release };
    return true;
  }

  /** Returns false when not paused. */
  resume(): boolean {
    const gate = this.pauseGate;
    if (!gate) return false;
    this.pauseGate = undefined;
    gate.release();
    return true;
  }

  /** Aborts the task's signal with `reason` (a message, or the error to end with). Returns false when already cancelled. */
  cancel(reason: string | RequestCancelledError): boolean {
    if (this.controller.signal.aborted) return false;
    this.controller.abort(typeof reason === 'string' ? new RequestCancelledError(reason) : reason);
    return true;
  }

  /**
   * Resolves at once (false), or when a pause ends (true: the page may have changed meanwhile);
   * rejects as soon as the task is cancelled.
   */
  async checkpoint(): Promise<boolean> {
    throwIfAborted(this.signal);
    let waited = false;
    while (this.pauseGate) {
      waited = true;
      await raceAbort(this.pauseGate.promise, this.signal);
    }
    return waited;
  }
}
