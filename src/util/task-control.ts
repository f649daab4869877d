// Pause, resume and cancel for one run (an Executor's task, a collection): a pause is a promise the
// loop awaits (no polling), and a cancel aborts the run's AbortSignal, which every wait, model call and action races.

import { RequestCancelledError } from '../errors';
import { throwIfAborted } from './abort';

/** The control state of the running task. */
export class TaskControl {
  private controller = new AbortController();
  private pauseGate: { promise: Promise<void>; release: () => void } | undefined;
  /** The signals of the parts running now ({@link TaskControl.part}), aborted by `cancel` itself. */
  private parts = new Set<AbortController>();

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
    this.parts = new Set();
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
    const error = typeof reason === 'string' ? new RequestCancelledError(reason) : reason;
    this.controller.abort(error);
    for (const part of this.parts) part.abort(error);
    this.parts.clear();
    // The checkpoints waiting out a pause wake up and throw the cancel.
    this.pauseGate?.release();
    return true;
  }

  /**
   * A signal for one part of the task (a page of a collection) that aborts when the task is
   * cancelled; `end()` when the part is over. It is linked without a listener on the task's
   * signal, so any number of parts may run at once: Node warns past 10 listeners on one signal.
   */
  part(): { readonly signal: AbortSignal; end(): void } {
    const controller = new AbortController();
    if (this.cancelled) controller.abort(this.signal.reason);
    else this.parts.add(controller);
    return { signal: controller.signal, end: () => void this.parts.delete(controller) };
  }

  /**
   * Resolves at once (false), or when a pause ends (true: the page may have changed meanwhile);
   * rejects as soon as the task is cancelled. A wait adds no listener to the task's signal: the
   * cancel opens the pause itself, however many parts are waiting.
   */
  async checkpoint(): Promise<boolean> {
    throwIfAborted(this.signal);
    let waited = false;
    while (this.pauseGate) {
      waited = true;
      await this.pauseGate.promise;
      throwIfAborted(this.signal);
    }
    return waited;
  }
}
