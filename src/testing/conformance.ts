// The shape every plannav conformance kit shares: named cases a test runner registers, and the
// error a broken contract throws. Runner-agnostic: nothing here may import a test framework.

/**
 * One check of a conformance kit, named `group › check`, that a test runner runs as one test.
 *
 * @remarks
 * `run` resolves when the implementation under test keeps the contract and rejects with a
 * {@link ConformanceError} when it does not. Every case cleans up after itself (servers, timers),
 * so cases may run in any order, or only some of them.
 * @public
 */
export interface ConformanceCase {
  /** The check's name, `group › check`, such as `error mapping › 401 is a ChatModelAuthError`. */
  readonly name: string;
  /** Runs the check; rejects with a {@link ConformanceError} naming the broken contract. */
  run(): Promise<void>;
}

/**
 * A test runner's function that registers one test: vitest's and jest's `it` or `test`, or
 * `node:test`'s `test`.
 * @public
 */
export type ConformanceTestFunction = (name: string, run: () => Promise<void>) => unknown;

/** What a {@link ConformanceError} reports. @public */
export interface ConformanceErrorOptions {
  /** The case that failed, `group › check`. */
  readonly check: string;
  /** The contract, in one sentence: what any implementation must do. */
  readonly contract: string;
  /** What the check expected to see. */
  readonly expected: string;
  /** What came back instead. */
  readonly received: string;
  /** How to fix the implementation. */
  readonly fix: string;
  /** What the implementation threw, when it threw something unexpected. */
  readonly cause?: unknown;
}

const conformanceMarker = Symbol.for('plannav.conformance-error');

/**
 * A conformance check failed: the implementation under test broke the contract the message
 * names. The message says what was expected, what came back and how to fix it.
 *
 * @remarks
 * This is a test failure, not a run-time error of plannav, so it is not a `PlannavError` (it has
 * no `code` or `retryable` to branch on). Use the static `isInstance` rather than `instanceof`:
 * it works across two copies of the package.
 * @public
 */
export class ConformanceError extends Error {
  /** The case that failed, `group › check`. */
  readonly check: string;
  /** The contract that was broken. */
  readonly contract: string;
  /** What the check expected to see. */
  readonly expected: string;
  /** What came back instead. */
  readonly received: string;
  /** How to fix the implementation. */
  readonly fix: string;

  /** Creates the error; the message joins the contract, the expected and received values, and the fix. */
  constructor(options: ConformanceErrorOptions) {
    super(
      [
        `Conformance check failed: ${options.check}`,
        `  Contract: ${options.contract}`,
        `  Expected: ${options.expected}`,
        `  Received: ${options.received}`,
        `  Fix: ${options.fix}`,
      ].join('\n'),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'ConformanceError';
    this.check = options.check;
    this.contract = options.contract;
    this.expected = options.expected;
    this.received = options.received;
    this.fix = options.fix;
    Object.defineProperty(this, conformanceMarker, { value: true, enumerable: false });
  }

  /** Whether `error` is a {@link ConformanceError}, even from another copy of the package. */
  static isInstance(error: unknown): error is ConformanceError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[conformanceMarker] === true;
  }
}

/**
 * Registers every case as one test of the runner whose `test` (or `it`) function is given.
 *
 * @example
 * ```ts
 * import { it } from 'vitest'; // or jest's `it`, or `import { test } from 'node:test'`
 * registerConformance(modelClientConformance({ wireFormat: 'openai', createClient }), it);
 * ```
 * @public
 */
export function registerConformance(cases: readonly ConformanceCase[], test: ConformanceTestFunction): void {
  for (const conformanceCase of cases) test(conformanceCase.name, () => conformanceCase.run());
}

/**
 * A short, readable account of a value for the `received` line: an error's class, code and
 * message; anything else as JSON, cut to a readable length.
 * @internal
 */
export function describeValue(value: unknown): string {
  if (value instanceof Error) {
    const details = value as Error & { code?: unknown; retryable?: unknown; statusCode?: unknown };
    const facts = [
      typeof details.code === 'string' ? `code ${details.code}` : undefined,
      typeof details.retryable === 'boolean' ? `retryable ${details.retryable}` : undefined,
      typeof details.statusCode === 'number' ? `statusCode ${details.statusCode}` : undefined,
    ].filter((fact) => fact !== undefined);
    return `${value.name}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}: ${cut(value.message)}`;
  }
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return JSON.stringify(cut(value));
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined; // a cycle, a bigint
  }
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the last resort for a value JSON cannot write
  return cut(json ?? String(value));
}

function cut(text: string, length = 300): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}
