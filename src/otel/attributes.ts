// The attribute names and values of plannav's spans: the OpenTelemetry GenAI semantic conventions
// for model calls, and `plannav.*` for the rest. Pure functions of event payloads; no tracer here.

import type { Attributes } from '@opentelemetry/api';
import type { ErrorInfo, ExecutorEventMap } from '../index';

/** The longest text (an action's parameters or result) put in one attribute; the rest is cut with an ellipsis. */
export const maxAttributeLength = 2048;

/** Who made a model call: an agent of the loop, or the extraction model inside an action (`extract_content`). */
export type ModelCallRole = 'planner' | 'navigator' | 'validator' | 'extractor';

type Usage = ExecutorEventMap['model-call-end']['usage'];

/** `text` no longer than {@link maxAttributeLength}. */
export function capped(text: string): string {
  return text.length <= maxAttributeLength ? text : `${text.slice(0, maxAttributeLength - 1)}…`;
}

/** A value as an attribute's text: strings as they are, anything else as JSON. */
export function asText(value: unknown): string {
  if (typeof value === 'string') return capped(value);
  try {
    return capped(JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item)) ?? String(value));
  } catch {
    return '(a value with a cycle)';
  }
}

/** The attributes a model call's span starts with (GenAI semantic conventions, client span). */
export function modelCallStartAttributes(event: ExecutorEventMap['model-call-start'], role: ModelCallRole): Attributes {
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': event.provider,
    // The older name of the provider attribute, which many backends still read.
    'gen_ai.system': event.provider,
    'gen_ai.request.model': event.model,
    'plannav.agent.role': role,
    'plannav.model_call.attempt': event.attempt,
  };
}

/** What a model call's span learns when it ends: its tokens, cost and finish reason. */
export function modelCallEndAttributes(event: ExecutorEventMap['model-call-end']): Attributes {
  const { usage } = event;
  return {
    'gen_ai.usage.input_tokens': usage.inputTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
    ...(usage.cachedInputTokens > 0 ? { 'gen_ai.usage.cache_read.input_tokens': usage.cachedInputTokens } : {}),
    ...(usage.reasoningTokens > 0 ? { 'plannav.usage.reasoning_tokens': usage.reasoningTokens } : {}),
    ...(event.finishReason ? { 'gen_ai.response.finish_reasons': [event.finishReason] } : {}),
    ...(typeof usage.costUsd === 'number' ? { 'plannav.cost_usd': usage.costUsd } : {}),
  };
}

/**
 * The summed usage of a step or a task, under `plannav.usage.*` rather than `gen_ai.usage.*`: a
 * backend that adds up `gen_ai.usage.*` over spans would otherwise count each call's tokens twice.
 */
export function usageAttributes(usage: Usage): Attributes {
  return {
    'plannav.usage.input_tokens': usage.inputTokens,
    'plannav.usage.output_tokens': usage.outputTokens,
    'plannav.usage.total_tokens': usage.totalTokens,
    'plannav.usage.model_calls': usage.calls,
    ...(typeof usage.costUsd === 'number' ? { 'plannav.cost_usd': usage.costUsd } : {}),
  };
}

/** An error's attributes: `error.type` (semantic conventions) is its class name, `plannav.error.code` its code. */
export function errorAttributes(error: ErrorInfo): Attributes {
  return { 'error.type': error.name, 'plannav.error.code': error.code };
}
