import { CONSOLE_APP_SCRIPT } from './assets/consoleAppScript';
import { CONSOLE_APPROVALS_SCRIPT } from './assets/consoleApprovalsScript';
import { CONSOLE_CONVERSATION_SCRIPT } from './assets/consoleConversationScript';
import { CONSOLE_DETAIL_SCRIPT } from './assets/consoleDetailScript';
import { CONSOLE_DOM_SCRIPT } from './assets/consoleDomScript';
import { CONSOLE_PAGE } from './assets/consolePage';
import { CONSOLE_QUEUES_SCRIPT } from './assets/consoleQueuesScript';
import { CONSOLE_STYLES } from './assets/consoleStyles';
import { CONSOLE_STREAMS_SCRIPT } from './assets/consoleStreamsScript';
import { CONSOLE_TIMELINE_SCRIPT } from './assets/consoleTimelineScript';

/** A static file of the console page. */
export interface ConsoleAsset {
  readonly contentType: string;
  readonly body: string;
}

const script = (body: string): ConsoleAsset => ({
  contentType: 'text/javascript; charset=utf-8',
  body,
});

/**
 * The page's files by path. They are TypeScript string constants, not files on disk, so
 * they are the same from `src/` (tests) and `dist/` (the package) with no copy step.
 */
export const CONSOLE_ASSETS: ReadonlyMap<string, ConsoleAsset> = new Map([
  ['/', { contentType: 'text/html; charset=utf-8', body: CONSOLE_PAGE }],
  ['/console.css', { contentType: 'text/css; charset=utf-8', body: CONSOLE_STYLES }],
  ['/dom.js', script(CONSOLE_DOM_SCRIPT)],
  ['/timeline.js', script(CONSOLE_TIMELINE_SCRIPT)],
  ['/approvals.js', script(CONSOLE_APPROVALS_SCRIPT)],
  ['/conversation.js', script(CONSOLE_CONVERSATION_SCRIPT)],
  ['/detail.js', script(CONSOLE_DETAIL_SCRIPT)],
  ['/streams.js', script(CONSOLE_STREAMS_SCRIPT)],
  ['/queues.js', script(CONSOLE_QUEUES_SCRIPT)],
  ['/app.js', script(CONSOLE_APP_SCRIPT)],
]);
