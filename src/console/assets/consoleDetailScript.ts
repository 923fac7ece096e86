/**
 * `detail.js`: the run detail, `window.WaymarkDetail.create(api, showProblem)`. It loads a
 * run's history a page at a time: the first page when a run is picked, the next one when
 * the end of the step table scrolls into view (or "Load more steps" is clicked). Each poll
 * re-reads one page — from the first step loaded that has not finished, or past the last
 * one — so neither the browser nor the server ever holds a long history whole. The timeline
 * draws the first steps loaded; the table lists every one. Plain browser JavaScript.
 */
export const CONSOLE_DETAIL_SCRIPT = String.raw`'use strict';
(function () {
  var PAGE = 200;
  var TIMELINE_ROWS = 200;
  var ENDED = ['completed', 'failed', 'cancelled'];
  var dom = window.WaymarkDom;
  var timeline = window.WaymarkTimeline;
  var conversation = window.WaymarkConversation;
  var element = dom.element;

  function byId(id) {
    return document.getElementById(id);
  }

  function create(api, showProblem) {
    // steps: seq -> record; rows: seq -> { key, tr }; nextFrom: where the next page starts,
    // null once the loaded steps reach the end of the history.
    var state = { runId: null, detail: null, steps: new Map(), rows: new Map(), nextFrom: null, loading: false };
    var observer = null;

    function url(runId, from, limit) {
      return 'runs/' + encodeURIComponent(runId) + '?from=' + from + '&limit=' + limit;
    }

    function sortedSteps() {
      return Array.from(state.steps.values()).sort(function (a, b) {
        return a.seq - b.seq;
      });
    }

    /** Takes the page's steps below upTo (all when null) and the run's facts. */
    function merge(page, upTo) {
      page.steps.forEach(function (step) {
        if (upTo === null || step.seq < upTo) state.steps.set(step.seq, step);
      });
      state.detail = page;
    }

    function fact(name, value) {
      return value === null || value === undefined || value === '' ? [] : [element('dt', { text: name }), element('dd', { text: value })];
    }

    /** The arguments' node is kept across polls while they read the same, so it stays open. */
    function argumentsFact(stored) {
      if (!stored) return [];
      var key = state.runId + '\n' + JSON.stringify(stored);
      if (!state.args || state.args.key !== key) state.args = { key: key, node: dom.value(stored) };
      return [element('dt', { text: 'arguments' }), element('dd', {}, [state.args.node])];
    }

    /** A model or tool call read as a conversation; any other step's value as it is. */
    function outputCell(step, calls) {
      return conversation.render(step, calls) || dom.value(step.output);
    }

    function stepRow(step, calls) {
      return element('tr', { data: { seq: step.seq, status: step.status } }, [
        element('td', { text: step.seq }),
        element('td', { className: 'mono', text: step.name }),
        element('td', {}, [dom.badge(step.status)]),
        element('td', { text: step.attempts > 1 ? '\u00d7' + step.attempts + ' (' + (step.attempts - 1) + ' retried)' : '1' }),
        element('td', { text: step.durationMs === null ? '' : dom.formatMs(step.durationMs) }),
        element('td', { className: 'output' }, [outputCell(step, calls)]),
        element('td', { className: 'error', text: step.error ? step.error.name + ': ' + step.error.message : '' }),
      ]);
    }

    /**
     * The table's rows, rebuilding only those whose step changed (for a tool step, also the
     * arguments found for it in the model calls loaded).
     */
    function renderSteps(steps) {
      var kept = new Map();
      var calls = conversation.toolCalls(steps);
      var rows = steps.map(function (step) {
        var key = JSON.stringify(step) + toolCallKey(step, calls);
        var row = state.rows.get(step.seq);
        if (!row || row.key !== key) row = { key: key, tr: stepRow(step, calls) };
        kept.set(step.seq, row);
        return row.tr;
      });
      state.rows = kept;
      var body = byId('steps-body');
      var same = body.children.length === rows.length && rows.every(function (tr, i) {
        return body.children[i] === tr;
      });
      if (!same) body.replaceChildren.apply(body, rows);
    }

    /** What a tool step's row shows from another step: the call's arguments, once loaded. */
    function toolCallKey(step, calls) {
      var call = conversation.toolCallOf(step, calls);
      return call ? '\n' + call.input : '';
    }

    function render() {
      var detail = state.detail;
      var run = detail.run;
      var steps = sortedSteps();
      byId('detail-empty').hidden = true;
      byId('detail-body').hidden = false;
      dom.fill(byId('detail-title'), 'Timeline of ' + run.runId);
      var facts = [].concat(
        fact('run', run.runId),
        fact('workflow', run.workflow + (run.version ? ' v' + run.version : '')),
        fact('status', run.status),
        argumentsFact(run.args),
        fact('waiting for', run.waitingFor),
        fact('due', dom.formatTime(run.wakeAt)),
        fact('parked at', run.parkedSeq === null ? null : '#' + run.parkedSeq),
        fact('parked because', run.parkedReason),
        fact('forked from', run.forkedFrom ? run.forkedFrom + ' at #' + run.forkedSeq : null),
        fact('started', dom.formatTime(run.createdAt)),
        fact('updated', dom.formatTime(run.updatedAt))
      );
      byId('run-facts').replaceChildren.apply(byId('run-facts'), facts);
      var drawn = steps.slice(0, TIMELINE_ROWS);
      timeline.draw(byId('timeline'), { run: run, steps: drawn, now: detail.now });
      var note = byId('timeline-note');
      note.hidden = drawn.length === steps.length;
      note.textContent = 'The picture shows the first ' + drawn.length + ' steps; the table lists all ' + steps.length + ' loaded.';
      renderSteps(steps);
      byId('steps-count').textContent = steps.length + (state.nextFrom === null ? ' steps' : ' steps loaded, more below');
      byId('steps-more').hidden = state.nextFrom === null;
      var outcome = detail.outcome;
      byId('outcome-title').hidden = byId('outcome').hidden = !outcome;
      if (outcome) {
        // A long result comes as the start of its stored JSON (resultPreview), not parsed.
        var preview = outcome.resultPreview;
        byId('outcome-title').textContent = 'error' in outcome ? 'Error' : 'Result';
        dom.fill(
          byId('outcome'),
          preview
            ? preview.json + '… (' + (preview.length - preview.json.length) + ' more characters)'
            : JSON.stringify('result' in outcome ? outcome.result : outcome.error, null, 2),
          true,
        );
      }
      byId('cancel-run').hidden = ENDED.indexOf(run.status) >= 0;
    }

    function select(runId) {
      state.runId = runId;
      state.detail = null;
      state.steps = new Map();
      state.nextFrom = null;
      state.loading = false;
      byId('steps-body').replaceChildren();
      state.rows = new Map();
      return api('GET', url(runId, 0, PAGE)).then(function (page) {
        if (state.runId !== runId) return;
        merge(page, null);
        state.nextFrom = page.nextFrom;
        render();
      });
    }

    /** The next page, when the loaded steps do not reach the end yet. */
    function loadMore() {
      var runId = state.runId;
      var from = state.nextFrom;
      if (!runId || from === null || state.loading) return Promise.resolve();
      state.loading = true;
      return api('GET', url(runId, from, PAGE))
        .then(function (page) {
          if (state.runId !== runId || state.nextFrom !== from) return;
          merge(page, null);
          state.nextFrom = page.nextFrom;
          render();
        })
        .finally(function () {
          state.loading = false;
          // Still in view after the page grew (a short page): observing again looks again.
          if (observer) {
            observer.unobserve(byId('steps-more'));
            observer.observe(byId('steps-more'));
          }
        });
    }

    /**
     * One page for the poll: from the first loaded step that has not finished, else past the
     * last one when everything is loaded; else only the run's facts (a one-step page).
     */
    function refresh() {
      var runId = state.runId;
      if (!runId || !state.detail) return Promise.resolve();
      var steps = sortedSteps();
      var open = steps.find(function (step) {
        return !step.finishedAt;
      });
      var last = steps[steps.length - 1];
      var upTo = state.nextFrom;
      var from = open ? open.seq : upTo === null ? (last ? last.seq + 1 : 0) : upTo;
      var limit = open || upTo === null ? PAGE : 1;
      return api('GET', url(runId, from, limit)).then(function (page) {
        if (state.runId !== runId || state.nextFrom !== upTo) return;
        merge(page, upTo);
        // Past what was loaded: the tail grew beyond this page, load it on scroll.
        if (upTo === null && page.nextFrom !== null && (!last || page.nextFrom > last.seq + 1)) {
          state.nextFrom = page.nextFrom;
        }
        render();
      });
    }

    function watchScrolling() {
      var button = byId('steps-more');
      button.addEventListener('click', function () {
        loadMore().catch(function (error) {
          showProblem(error.message);
        });
      });
      if (!('IntersectionObserver' in window)) return;
      observer = new IntersectionObserver(function (entries) {
        if (entries.some(function (entry) { return entry.isIntersecting; })) {
          loadMore().catch(function (error) {
            showProblem(error.message);
          });
        }
      }, { rootMargin: '400px' });
      observer.observe(button);
    }

    watchScrolling();
    return {
      select: select,
      refresh: refresh,
      selected: function () {
        return state.runId;
      },
    };
  }

  window.WaymarkDetail = { create: create };
})();
`;
