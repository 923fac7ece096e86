import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { AiCall } from '../model/AiCall';
import type { WaymarkEvents } from '../runtime';
import type { OpenTelemetryApi } from './OpenTelemetryApi';
import { endSpan } from './spanEnd';
import { stepAttributes } from './stepAttributes';

/**
 * Makes the span OpenTelemetry's GenAI conventions (semconv 1.37) name for one `ai.call`:
 * `chat {gen_ai.request.model}` (kind CLIENT) or `execute_tool {gen_ai.tool.name}` (INTERNAL),
 * with the call's own start and end, under `parent` (the step attempt's span). `ai.call` is
 * told only by a body that ran, so a call replayed from the history makes no span.
 */
export function recordGenAiSpan(
  otel: OpenTelemetryApi,
  tracer: Tracer,
  report: WaymarkEvents['ai.call'],
  parent: Context,
): void {
  const { call } = report;
  const chat = call.operation === 'chat';
  const span = tracer.startSpan(
    chat ? `chat ${call.requestModel}` : `execute_tool ${call.toolName}`,
    {
      kind: chat ? otel.SpanKind.CLIENT : otel.SpanKind.INTERNAL,
      startTime: call.startTime,
      attributes: { ...stepAttributes(report), ...genAiAttributes(call) },
    },
    parent,
  );
  if (call.error !== undefined) span.setAttribute('error.type', errorType(call.error));
  endSpan(otel, span, call.error === undefined ? 'completed' : 'failed', call.error, call.endTime);
}

/**
 * Makes a run execution's span the `invoke_agent` span of the conventions (named
 * `invoke_agent <workflow>`, `gen_ai.agent.name` the workflow): the parent, through the step
 * spans, of the `chat` and `execute_tool` spans of its calls. Its `waymark.*` attributes stay.
 */
export function markAgentRun(span: Span, workflow: string): void {
  span.updateName(`invoke_agent ${workflow}`);
  span.setAttributes({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': workflow });
}

/** The `gen_ai.*` attributes of a call; absent facts (no usage reported) are left out. */
function genAiAttributes(call: AiCall): Attributes {
  if (call.operation === 'execute_tool') {
    return {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.toolName,
      'gen_ai.tool.call.id': call.toolCallId,
    };
  }
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': call.provider,
    // The name before semconv 1.37, which some backends still read.
    'gen_ai.system': call.provider,
    'gen_ai.request.model': call.requestModel,
  };
  if (call.responseModel !== undefined) attributes['gen_ai.response.model'] = call.responseModel;
  if (call.inputTokens !== undefined) attributes['gen_ai.usage.input_tokens'] = call.inputTokens;
  if (call.outputTokens !== undefined) attributes['gen_ai.usage.output_tokens'] = call.outputTokens;
  if (call.finishReasons.length > 0) {
    attributes['gen_ai.response.finish_reasons'] = [...call.finishReasons];
  }
  return attributes;
}

/** `error.type` as the conventions ask: the error's class name, else `_OTHER`. */
function errorType(error: unknown): string {
  return error instanceof Error ? error.name : '_OTHER';
}
