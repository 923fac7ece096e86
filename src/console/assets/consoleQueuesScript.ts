/**
 * `queues.js`: the "Queues" panel, `window.WaymarkQueues.render`. One row per queue with its
 * depth (runs waiting to start), runs waiting on a timer or signal, runs executing and which
 * ones; one row per limiter with its held slots and pause. Plain browser JavaScript.
 */
export const CONSOLE_QUEUES_SCRIPT = String.raw`'use strict';
(function () {
  var dom = window.WaymarkDom;
  var element = dom.element;

  function cell(text, className) {
    return element('td', { className: className, text: text });
  }

  /** Fills body (a tbody) from report = { queues, limiters }; emptyNote shows when there is nothing. */
  function render(body, emptyNote, report) {
    var rows = report.queues.map(function (queue) {
      var running = queue.executing.map(function (run) {
        return run.runId + (run.partitionKey ? ' [' + run.partitionKey + ']' : '');
      }).join(', ');
      return element('tr', { data: { queue: queue.name } }, [
        cell(queue.name === '' ? '(default)' : queue.name, 'mono'),
        cell(queue.pending),
        cell(queue.waiting),
        cell(queue.running),
        cell(running, 'mono muted'),
      ]);
    });
    report.limiters.forEach(function (limiter) {
      var paused = limiter.pausedUntil ? 'paused until ' + dom.formatTime(limiter.pausedUntil) : '';
      rows.push(element('tr', { data: { limiter: limiter.name } }, [
        cell('limiter ' + limiter.name, 'mono'),
        cell(''),
        cell(''),
        cell(limiter.held),
        cell(paused, 'muted'),
      ]));
    });
    body.replaceChildren.apply(body, rows);
    emptyNote.hidden = rows.length > 0;
  }

  window.WaymarkQueues = { render: render };
})();
`;
