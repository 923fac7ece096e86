/**
 * `waymark/console`: the web console and its JSON API, as a standalone server or a handler
 * to mount in an application's own HTTP server.
 *
 * @packageDocumentation
 */
// tsyringe throws at load without the metadata polyfill, and this entry point may be loaded first.
import 'reflect-metadata';
export { generateToken } from './bearerToken';
export type { ConsoleRole } from './ConsoleRole';
export { hashConsoleToken, parseConsoleTokens, type ConsoleTokenHash } from './consoleTokens';
export {
  createConsoleHandler,
  type ConsoleHandler,
  type ConsoleHandlerOptions,
} from './createConsoleHandler';
export { createStreamHandler, type StreamHandlerOptions } from './createStreamHandler';
export type { ConsoleStep, RunDetailResponse, RunListResponse, RunOutcomeJson } from './ConsoleApi';
export type { ListedRun, ToolApprovalPreview } from './approvalPreview';
export type { ConversationPart, ModelCallView, ToolCallView } from './conversationView';
export type { CancelRequest, SignalRequest } from './consoleRequests';
export { CONTENT_SECURITY_POLICY } from './httpResponses';
export { DEFAULT_MAX_BODY_BYTES } from './readJsonBody';
export { startConsole, type RunningConsole, type StartConsoleOptions } from './startConsole';
