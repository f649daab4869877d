// The entry of the page runtime: the one script plannav installs in each document, bundled from
// the modules of this folder at build time. It exposes named methods; the core calls them by name.

import { actionMethods } from './actions/index';
import { probeChanges } from './changes';
import { driverMethods, elementMethods } from './driver/index';
import { fingerprints } from './fingerprint';
import { installPressWatch } from './driver/pointer';
import { installRecorder } from './recorder';
import { documentToken, elementIdOf, resolveElement, type ElementLocator, type LookupFailure } from './registry';
import { startTimerProbe, timerProbeFired, waitForDomQuiet } from './settle';
import { takeSnapshot } from './snapshot';

/** Replaced at build time by the runtime's versioned global name (it carries a hash of the bundle). */
declare const __PLANNAV_RUNTIME_KEY__: string;

/** The methods the core calls with JSON arguments through `driver.evaluate`. */
export const runtimeMethods = {
  snapshot: takeSnapshot,
  changes: probeChanges,
  domQuiet: waitForDomQuiet,
  timerProbe: startTimerProbe,
  timerProbeFired,
  fingerprints,
  documentToken,
  ...driverMethods,
  ...actionMethods,
};

/** The names of the runtime's JSON methods. */
export type RuntimeMethod = keyof typeof runtimeMethods;

/** The object installed on `window` under the runtime's versioned name. */
export interface InstalledRuntime {
  /** The runtime's versioned name, as the core knows it. */
  readonly version: string;
  /** Runs a JSON method by name. */
  call(method: string, argument: unknown): unknown;
  /** The element behind a snapshot id, for drivers that hold element handles; a string when it is gone. */
  element(locator: ElementLocator): Element | LookupFailure;
  /** The id the snapshot gives an element (it becomes resolvable by that id). */
  idOf(element: Element): string;
  /** The page side of a driver's element methods, on an element the driver holds a handle to. */
  readonly elements: typeof elementMethods;
}

/** Installs the runtime in this document once; returns false when it was already there. */
export function install(): boolean {
  const key = __PLANNAV_RUNTIME_KEY__;
  const host = window as unknown as Record<string, unknown>;
  if (host[key]) return false;
  // The press watch first: its listeners come before the page's, and the recorder does not list them as the page's.
  installPressWatch();
  installRecorder();
  const methods = runtimeMethods as unknown as Record<string, (argument: unknown) => unknown>;
  const runtime: InstalledRuntime = {
    version: key,
    call(method, argument) {
      const run = Object.prototype.hasOwnProperty.call(methods, method) ? methods[method] : undefined;
      if (!run) throw new Error(`The plannav page runtime has no method ${method}.`);
      return run(argument);
    },
    element: resolveElement,
    idOf: elementIdOf,
    elements: elementMethods,
  };
  Object.defineProperty(window, key, { value: Object.freeze(runtime), enumerable: false, configurable: false, writable: false });
  return true;
}
