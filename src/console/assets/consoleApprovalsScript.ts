/**
 * `approvals.js`: the "Waiting for a signal" list, `window.WaymarkApprovals.render`. One
 * item per run waiting for `signal:<name>`, kept across refreshes so a payload being typed
 * survives them, with a JSON payload field and Approve / Reject buttons: Approve sends
 * signal `<name>` with `{ ...payload, approved: true }`, Reject with `approved: false` (the
 * button decides `approved`, whatever the field says). A run waiting for a tool call's
 * approval (`approve:<toolCallId>`, from `waymark/ai`) also shows the tool's name and the
 * proposed arguments (`run.approval`, already cut by the server), as text: stored values
 * are never markup, and their control and invisible characters show escaped; its decision
 * carries the `waitSeq` and `digest` of the request shown, and a 409 (someone decided first)
 * is shown with who and when. Plain browser JavaScript.
 */
export const CONSOLE_APPROVALS_SCRIPT = String.raw`'use strict';
(function () {
  var dom = window.WaymarkDom;
  var items = new Map();

  function payloadFrom(textarea) {
    var text = textarea.value.trim();
    if (text === '') return {};
    var value = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Error('the payload must be a JSON object, e.g. {"by": "dana"}');
    }
    return value;
  }

  function say(parts, text, isError) {
    parts.message.className = isError ? 'message error' : 'message';
    dom.fill(parts.message, text);
  }

  async function answer(run, approved, parts, send) {
    var payload;
    try {
      // A tool call's decision names the request shown, so it can never answer a later one.
      var shown = run.approval ? { waitSeq: run.approval.waitSeq, digest: run.approval.digest } : {};
      payload = Object.assign({}, payloadFrom(parts.textarea), shown, { approved: approved });
    } catch (error) {
      say(parts, 'not sent: ' + error.message, true);
      return;
    }
    parts.approve.disabled = parts.reject.disabled = true;
    try {
      await send(run, run.waitingFor.slice('signal:'.length), payload);
      say(parts, approved ? 'approved' : 'rejected', false);
    } catch (error) {
      parts.approve.disabled = parts.reject.disabled = false;
      say(parts, 'not sent: ' + error.message, true);
    }
  }

  function itemFor(run) {
    var parts = {
      textarea: dom.element('textarea', {}),
      approve: dom.element('button', { className: 'approve', text: 'Approve' }),
      reject: dom.element('button', { className: 'reject', text: 'Reject' }),
      message: dom.element('span', { className: 'message' }),
      signal: dom.element('code', {}),
      until: dom.element('span', { className: 'muted' }),
      tool: dom.element('code', { className: 'tool' }),
      args: dom.element('pre', { className: 'args' }),
    };
    parts.proposal = dom.element('div', { className: 'proposal' }, [
      dom.element('span', { className: 'muted', text: 'tool' }),
      parts.tool,
      parts.args,
    ]);
    parts.textarea.placeholder = 'payload, JSON object (optional): {"by": "dana"}';
    parts.textarea.setAttribute('aria-label', 'signal payload for ' + dom.shown(run.runId));
    parts.approve.type = parts.reject.type = 'button';
    var item = dom.element('li', { data: { runId: run.runId } }, [
      dom.element('div', { className: 'who' }, [
        dom.element('strong', { className: 'mono', text: run.runId }),
        dom.element('span', { className: 'muted', text: run.workflow }),
        parts.signal,
        parts.until,
      ]),
      parts.proposal,
      parts.textarea,
      dom.element('div', { className: 'actions' }, [parts.approve, parts.reject, parts.message]),
    ]);
    item.parts = parts;
    return item;
  }

  // approval: { tool, toolCallId, input: { json, truncated, length } }, or absent.
  function showProposal(parts, approval) {
    parts.proposal.hidden = !approval;
    dom.fill(parts.tool, approval ? approval.tool : '');
    var input = approval ? approval.input : null;
    dom.fill(parts.args, !input
      ? ''
      : input.truncated
        ? input.json + '… (' + (input.length - input.json.length) + ' more characters)'
        : input.json, true);
  }

  /**
   * Shows the runs of page.runs that wait for a signal in list (empty: the note shows);
   * send(run, name, payload) sends one and returns a promise.
   */
  function render(list, emptyNote, runs, send) {
    var waiting = runs.filter(function (run) {
      return run.status === 'waiting' && (run.waitingFor || '').indexOf('signal:') === 0;
    });
    var shown = waiting.map(function (run) {
      var item = items.get(run.runId) || itemFor(run);
      items.set(run.runId, item);
      dom.fill(item.parts.signal, run.waitingFor);
      item.parts.until.textContent = run.wakeAt ? 'until ' + dom.formatTime(run.wakeAt) : '';
      showProposal(item.parts, run.approval);
      item.parts.approve.onclick = function () {
        void answer(run, true, item.parts, send);
      };
      item.parts.reject.onclick = function () {
        void answer(run, false, item.parts, send);
      };
      return item;
    });
    var kept = new Set(waiting.map(function (run) { return run.runId; }));
    Array.from(items.keys()).forEach(function (runId) {
      if (!kept.has(runId)) items.delete(runId);
    });
    var current = Array.from(list.children);
    var unchanged = current.length === shown.length && current.every(function (node, i) {
      return node === shown[i];
    });
    // Re-inserting the same nodes would take the focus out of a payload being typed.
    if (!unchanged) list.replaceChildren.apply(list, shown);
    emptyNote.hidden = shown.length > 0;
  }

  window.WaymarkApprovals = { render: render };
})();
`;
