/** A user's message, as the page posts it: `id` is made by the page, once per message. */
export interface ChatMessage {
  id: string;
  text: string;
}

/** One answered turn of a conversation, as the `reply` step records it: the transcript. */
export interface Turn {
  turn: number;
  messageId: string;
  user: string;
  answer: string;
  /** The offset the conversation's stream continues at after this turn. */
  end: number;
}

/**
 * What the conversation's stream carries: a turn's start (with the message it answers), the
 * answer's text as it comes (strings, written by `durableModel`), the turn's end.
 */
export type ChatEvent =
  | string
  | { type: 'turn'; turn: number; messageId: string; user: string }
  | { type: 'done'; turn: number };

/** The stream every turn of a conversation is written to, in order. */
export const CHAT_STREAM = 'chat';
