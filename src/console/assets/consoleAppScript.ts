/**
 * `app.js`: the console page's behaviour. Reads the token from the URL fragment
 * (`#token=…`) into sessionStorage and out of the address bar, polls the JSON API every
 * 2 s, and fills the runs list (status filters), the run detail (facts, timeline, steps,
 * result) and the approvals list, only through `textContent` and DOM nodes: a stored value
 * that looks like markup shows as text. Plain browser JavaScript, no build step.
 */
export const CONSOLE_APP_SCRIPT = String.raw`'use strict';
(function () {
  var TOKEN_KEY = 'waymark-console-token';
  var POLL_MS = 2000;
  var FILTERS = ['all', 'pending', 'running', 'waiting', 'needs_attention', 'completed', 'failed', 'cancelled'];
  var ENDED = ['completed', 'failed', 'cancelled'];
  var dom = window.WaymarkDom;
  var timeline = window.WaymarkTimeline;
  var approvals = window.WaymarkApprovals;
  var element = dom.element;
  var badge = dom.badge;
  var state = { filter: 'all', limit: 50, selected: null, token: null, timer: null };

  function byId(id) {
    return document.getElementById(id);
  }

  function readToken() {
    var match = /(?:^#|&)token=([^&]*)/.exec(location.hash);
    if (match) {
      try {
        sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
      } catch (error) {
        showProblem('the token in the URL is malformed: ' + error.message);
      }
      history.replaceState(null, '', location.pathname + location.search);
    }
    return sessionStorage.getItem(TOKEN_KEY);
  }

  function showProblem(message) {
    var problem = byId('problem');
    problem.textContent = message || '';
    problem.hidden = !message;
  }

  async function api(method, path, body) {
    var init = { method: method, headers: { Authorization: 'Bearer ' + (state.token || '') }, cache: 'no-store' };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    var response = await fetch('api/' + path, init);
    var data = await response.json().catch(function () {
      return {};
    });
    if (response.status === 401) byId('token-panel').hidden = false;
    if (!response.ok) throw new Error(data.error || 'HTTP ' + response.status);
    return data;
  }

  function renderFilters() {
    var buttons = FILTERS.map(function (status) {
      var button = element('button', { text: status.replace('_', ' '), data: { status: status } });
      button.type = 'button';
      button.setAttribute('aria-pressed', String(status === state.filter));
      button.addEventListener('click', function () {
        state.filter = status;
        state.limit = 50;
        renderFilters();
        void refresh();
      });
      return button;
    });
    byId('filters').replaceChildren.apply(byId('filters'), buttons);
  }

  function renderRuns(page) {
    var rows = page.runs.map(function (run) {
      var row = element('tr', { className: run.runId === state.selected ? 'selected' : '', data: { runId: run.runId, status: run.status } }, [
        element('td', { className: 'run-id', text: run.runId }),
        element('td', { text: run.workflow }),
        element('td', {}, [badge(run.status)]),
        element('td', { text: run.waitingFor || '' }),
        element('td', { text: dom.formatTime(run.updatedAt).slice(5) }),
      ]);
      row.tabIndex = 0;
      row.addEventListener('click', function () {
        select(run.runId);
      });
      row.addEventListener('keydown', function (event) {
        if (event.key === 'Enter') select(run.runId);
      });
      return row;
    });
    byId('runs-body').replaceChildren.apply(byId('runs-body'), rows);
    byId('runs-empty').hidden = rows.length > 0;
    byId('more').hidden = !page.nextCursor || state.limit >= 1000;
  }

  function sendSignal(run, name, payload) {
    return api('POST', 'runs/' + encodeURIComponent(run.runId) + '/signal', { name: name, payload: payload }).then(
      function () {
        void refresh();
      }
    );
  }

  function fact(name, value) {
    return value === null || value === undefined || value === '' ? [] : [element('dt', { text: name }), element('dd', { text: value })];
  }

  function renderDetail(detail) {
    var run = detail.run;
    byId('detail-empty').hidden = true;
    byId('detail-body').hidden = false;
    byId('detail-title').textContent = 'Timeline of ' + run.runId;
    var facts = [].concat(
      fact('run', run.runId),
      fact('workflow', run.workflow + (run.version ? ' v' + run.version : '')),
      fact('status', run.status),
      fact('waiting for', run.waitingFor),
      fact('due', dom.formatTime(run.wakeAt)),
      fact('parked at', run.parkedSeq === null ? null : '#' + run.parkedSeq),
      fact('forked from', run.forkedFrom ? run.forkedFrom + ' at #' + run.forkedSeq : null),
      fact('started', dom.formatTime(run.createdAt)),
      fact('updated', dom.formatTime(run.updatedAt))
    );
    byId('run-facts').replaceChildren.apply(byId('run-facts'), facts);
    timeline.draw(byId('timeline'), detail);
    var rows = detail.steps.map(function (step) {
      return element('tr', { data: { seq: step.seq, status: step.status } }, [
        element('td', { text: step.seq }),
        element('td', { className: 'mono', text: step.name }),
        element('td', {}, [badge(step.status)]),
        element('td', { text: step.attempts > 1 ? '\u00d7' + step.attempts + ' (' + (step.attempts - 1) + ' retried)' : '1' }),
        element('td', { text: step.durationMs === null ? '' : dom.formatMs(step.durationMs) }),
        element('td', { className: 'error', text: step.error ? step.error.name + ': ' + step.error.message : '' }),
      ]);
    });
    byId('steps-body').replaceChildren.apply(byId('steps-body'), rows);
    var outcome = detail.outcome;
    byId('outcome-title').hidden = byId('outcome').hidden = !outcome;
    if (outcome) {
      byId('outcome-title').textContent = 'result' in outcome ? 'Result' : 'Error';
      byId('outcome').textContent = JSON.stringify('result' in outcome ? outcome.result : outcome.error, null, 2);
    }
    byId('cancel-run').hidden = ENDED.indexOf(run.status) >= 0;
  }

  async function loadDetail() {
    if (!state.selected) return;
    var runId = state.selected;
    var detail = await api('GET', 'runs/' + encodeURIComponent(runId));
    if (state.selected === runId) renderDetail(detail);
  }

  function select(runId) {
    state.selected = runId;
    resetCancel();
    document.querySelectorAll('#runs-body tr').forEach(function (row) {
      row.classList.toggle('selected', row.dataset.runId === runId);
    });
    loadDetail().catch(function (error) {
      showProblem(error.message);
    });
  }

  function resetCancel() {
    var button = byId('cancel-run');
    button.dataset.armed = '';
    button.textContent = 'Cancel run';
  }

  async function cancelSelected() {
    var button = byId('cancel-run');
    if (button.dataset.armed !== 'yes') {
      button.dataset.armed = 'yes';
      button.textContent = 'Click again to cancel ' + state.selected;
      setTimeout(resetCancel, 4000);
      return;
    }
    resetCancel();
    await api('POST', 'runs/' + encodeURIComponent(state.selected) + '/cancel', { reason: 'cancelled from the console' });
    await refresh();
  }

  async function refresh() {
    var query = 'runs?limit=' + state.limit + (state.filter === 'all' ? '' : '&status=' + state.filter);
    try {
      var pages = await Promise.all([api('GET', query), api('GET', 'runs?status=waiting&limit=200')]);
      renderRuns(pages[0]);
      approvals.render(byId('waiting-list'), byId('waiting-empty'), pages[1].runs, sendSignal);
      await loadDetail();
      showProblem('');
      byId('token-panel').hidden = true;
      byId('refreshed').textContent = 'refreshed ' + dom.formatTime(pages[0].now);
    } catch (error) {
      showProblem(error.message);
    }
  }

  function poll() {
    clearTimeout(state.timer);
    refresh().finally(function () {
      state.timer = setTimeout(poll, POLL_MS);
    });
  }

  function start() {
    state.token = readToken();
    byId('token-panel').hidden = Boolean(state.token);
    byId('token-form').addEventListener('submit', function (event) {
      event.preventDefault();
      state.token = byId('token-input').value.trim();
      sessionStorage.setItem(TOKEN_KEY, state.token);
      poll();
    });
    byId('more').addEventListener('click', function () {
      state.limit = Math.min(1000, state.limit + 50);
      void refresh();
    });
    byId('cancel-run').addEventListener('click', function () {
      cancelSelected().catch(function (error) {
        showProblem(error.message);
      });
    });
    timeline.legend(byId('legend'));
    renderFilters();
    if (state.token) poll();
  }

  start();
})();
`;
