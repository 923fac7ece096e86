/**
 * `conversation.js`: how the run detail shows a step `waymark/ai` recorded,
 * `window.WaymarkConversation`. The API reads each such step's whole stored output into a
 * view (see `aiStepView.ts`); this draws it. A model call (`kind: 'model-call'`) reads as a
 * conversation: the messages its prompt added (role and text, tool results), the model's
 * reply (text, tool calls with name and arguments), token usage and finish reason. A tool
 * call (`kind: 'tool-call'`) reads as its name, arguments (from the model call that asked
 * for it) and result. The stored JSON stays one click away ("raw"), cut as the API cut it.
 * A step without a view, or one this cannot draw, is its raw value with a note; nothing
 * here throws on stored data. Text goes in with `textContent` only. Plain browser JavaScript.
 */
export const CONSOLE_CONVERSATION_SCRIPT = String.raw`'use strict';
(function () {
  var element = window.WaymarkDom.element;

  function text(value) {
    return value === undefined || value === null ? '' : String(value);
  }

  function partNode(part) {
    if (part.type === 'tool-call') {
      return element('div', { className: 'part tool-call' }, [
        element('span', { className: 'muted', text: 'calls ' }),
        element('code', { className: 'tool-name', text: part.toolName }),
        ' ',
        element('code', { className: 'tool-args', text: part.input }),
      ]);
    }
    if (part.type === 'tool-result') {
      return element('div', { className: 'part tool-result' }, [
        element('code', { className: 'tool-name', text: part.toolName }),
        element('span', { className: 'muted', text: ' returned ' }),
        element('code', { className: 'tool-result-value', text: part.output }),
      ]);
    }
    return element('div', { className: 'part ' + (part.type === 'reasoning' ? 'reasoning' : 'text'), text: part.text });
  }

  function messageNode(message) {
    var role = text(message.role);
    return element('div', { className: 'message-turn role-' + role.replace(/[^a-z]/g, ''), data: { role: role } }, [
      element('span', { className: 'role', text: role }),
      element('div', { className: 'parts' }, (message.parts || []).map(partNode)),
    ]);
  }

  /** Token usage and finish reason, when the call stored them. */
  function metaNode(view) {
    var items = [];
    var usage = view.usage;
    if (usage) {
      var count = function (n) {
        return typeof n === 'number' ? String(n) : '?';
      };
      items.push(element('span', { className: 'usage', text: 'tokens: ' + count(usage.inputTokens) + ' in, ' + count(usage.outputTokens) + ' out' }));
    }
    if (view.finishReason) items.push(element('span', { className: 'finish', text: 'finish: ' + view.finishReason }));
    return element('div', { className: 'call-meta' }, items);
  }

  /** The stored JSON as the output cell showed it before, behind a "raw" toggle. */
  function rawNode(stored) {
    var shown = stored.json;
    if (stored.truncated) {
      shown += '\u2026\n(' + (stored.length - stored.json.length) + ' more characters: waymark show <run> --json prints it whole)';
    } else {
      try {
        shown = JSON.stringify(JSON.parse(stored.json), null, 2);
      } catch (error) {
        shown = stored.json;
      }
    }
    return element('details', { className: 'raw' }, [element('summary', { text: 'raw' }), element('pre', { text: shown })]);
  }

  function unreadable(stored, why) {
    return element('div', { className: 'conversation' }, [element('div', { className: 'muted note', text: why }), rawNode(stored)]);
  }

  function modelCallNode(step) {
    var view = step.modelCall;
    if (!view) return unreadable(step.output, 'Not a model call the console can read (too long, or of an unknown shape):');
    var turns = (view.messages || []).map(messageNode);
    return element('div', { className: 'conversation model-call' }, turns.concat([metaNode(view), rawNode(step.output)]));
  }

  function toolCallNode(step, calls) {
    var view = step.toolCall;
    var call = toolCallOf(step, calls);
    var rows = [
      element('dt', { text: 'tool' }),
      element('dd', {}, [element('code', { className: 'tool-name', text: view.toolName })]),
      element('dt', { text: 'arguments' }),
      call
        ? element('dd', {}, [element('code', { className: 'tool-args', text: call.input })])
        : element('dd', { className: 'muted', text: 'in the model call that asked for it (not loaded)' }),
    ];
    if (view.output !== undefined) {
      rows.push(element('dt', { text: 'result' }), element('dd', {}, [element('code', { className: 'tool-result-value', text: view.output })]));
    }
    var children = [element('dl', { className: 'tool-facts' }, rows)];
    if (step.output) children.push(rawNode(step.output));
    return element('div', { className: 'conversation tool-call' }, children);
  }

  /** Tool calls by id, from the loaded model calls' replies: where a tool step's arguments are. */
  function toolCalls(steps) {
    var calls = new Map();
    steps.forEach(function (step) {
      var messages = (step.modelCall && step.modelCall.messages) || [];
      messages.forEach(function (message) {
        if (message.role !== 'assistant') return;
        (message.parts || []).forEach(function (part) {
          if (part.type === 'tool-call' && part.toolCallId !== undefined) calls.set(part.toolCallId, part);
        });
      });
    });
    return calls;
  }

  /** The model's call of a tool step, from toolCalls(), or undefined. */
  function toolCallOf(step, calls) {
    var id = step.toolCall && step.toolCall.toolCallId;
    return id === undefined ? undefined : calls.get(id);
  }

  /**
   * The output cell's content for a step waymark/ai recorded, or null for any other step
   * (and for a model call with no output yet): the caller shows the value as before.
   */
  function render(step, calls) {
    try {
      if (step.kind === 'model-call' && step.output) return modelCallNode(step);
      if (step.kind === 'tool-call' && step.toolCall) return toolCallNode(step, calls);
    } catch (error) {
      if (step.output) return unreadable(step.output, 'Could not be read as a conversation:');
    }
    return null;
  }

  window.WaymarkConversation = { render: render, toolCalls: toolCalls, toolCallOf: toolCallOf };
})();
`;
