import type { LanguageModelMiddleware, wrapLanguageModel } from 'ai';

/*
 * The AI SDK's language model types, taken from the `ai` package itself (not from
 * `@ai-sdk/provider`, which a strict package manager may not let this module resolve).
 */

/** The AI SDK's `LanguageModelV3` (what `wrapLanguageModel` takes): `durableModel`'s model. */
export type LanguageModelV3 = Parameters<typeof wrapLanguageModel>[0]['model'];
export type ModelMiddleware = LanguageModelMiddleware;
export type GenerateResult = Awaited<ReturnType<LanguageModelV3['doGenerate']>>;
export type StreamResult = Awaited<ReturnType<LanguageModelV3['doStream']>>;
export type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;
