// How the Playwright driver uses the page runtime where Playwright's API differs from Puppeteer's: the
// runtime's element methods on a handle, frame measuring. The shared calls are in src/chromium/runtime-calls.ts.

import type { ElementHandle, Frame } from 'playwright-core';
import type { ElementRef } from '../browser/types';
import { installRuntime, lookUpElement as lookUpAnyElement } from '../chromium/runtime-calls';
import { pageRuntime } from '../dom/page-runtime';
import type { elementMethods } from '../dom/page/driver/index';

/** The runtime's element methods, as the page defines them. */
type ElementMethods = typeof elementMethods;

/** The element behind a snapshot ref as a handle, or why there is none (`document`, `removed`). */
export function lookUpElement(frame: Frame, ref: ElementRef): Promise<ElementHandle<Element> | 'document' | 'removed'> {
  return lookUpAnyElement<ElementHandle>(frame, ref) as Promise<ElementHandle<Element> | 'document' | 'removed'>;
}

/** Calls one of the runtime's element methods on an element handle. */
export async function onElement<M extends keyof ElementMethods>(
  element: ElementHandle<Element>,
  method: M,
  argument: Parameters<ElementMethods[M]>[1],
): Promise<ReturnType<ElementMethods[M]>> {
  const call = { key: pageRuntime.version, method, argument };
  return element.evaluate(
    (node, { key, method: name, argument: value }) => {
      const runtime = (globalThis as unknown as Record<string, { elements: Record<string, (node: Element, value: unknown) => unknown> } | undefined>)[key];
      if (!runtime) throw new Error('The plannav page runtime is not installed in this document.');
      const run = runtime.elements[name];
      if (!run) throw new Error(`The plannav page runtime has no element method ${name}.`);
      return run(node, value);
    },
    call as { key: string; method: string; argument: unknown },
  ) as Promise<ReturnType<ElementMethods[M]>>;
}

/** The content boxes of child frames' elements in their parent's viewport (null for a frame that cannot be seen). */
export async function measureFrames(
  parent: Frame,
  elements: readonly ElementHandle[],
): Promise<({ x: number; y: number; width: number; height: number } | null)[]> {
  const measure = (): Promise<({ x: number; y: number; width: number; height: number } | null)[] | 'no-runtime'> =>
    parent.evaluate(
      ({ key, nodes }) => {
        const runtime = (
          globalThis as unknown as Record<
            string,
            { elements: { frameBoxes(nodes: Node[]): ({ x: number; y: number; width: number; height: number } | null)[] } } | undefined
          >
        )[key];
        return runtime ? runtime.elements.frameBoxes(nodes) : ('no-runtime' as const);
      },
      { key: pageRuntime.version, nodes: elements as ElementHandle[] },
    );
  let measured = await measure();
  if (measured === 'no-runtime') {
    await installRuntime(parent);
    measured = await measure();
  }
  return measured === 'no-runtime' ? elements.map(() => null) : measured;
}
