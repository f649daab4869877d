// plannav/otel: OpenTelemetry spans of a run (task, steps, model calls with the GenAI semantic
// conventions, actions), made from an Executor's events. Needs the optional peer `@opentelemetry/api`;
// the core (`plannav`) imports none of it.

export { traceExecutor, type TraceExecutorOptions, type TracedRun } from './trace-executor';
