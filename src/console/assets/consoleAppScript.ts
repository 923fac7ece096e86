/**
 * `app.js`: the console page's behaviour. Reads the token from the URL fragment
 * (`#token=…`) into sessionStorage and out of the address bar, polls the JSON API every
 * 2 s, and fills the runs list (status filters), the run detail (`detail.js`) and the
 * approvals list (a page of 50 runs waiting for a signal, with Newer / Older), only through
 * text nodes (`WaymarkDom.fill`): a stored value that looks like markup shows as text, its
 * control and invisible characters as marked escapes. Plain browser JavaScript, no build step.
 */
export const CONSOLE_APP_SCRIPT = String.raw`'use strict';
(function () {
  var TOKEN_KEY = 'waymark-console-token';
  var POLL_MS = 2000;
  var FILTERS = ['all', 'pending', 'running', 'waiting', 'needs_attention', 'completed', 'failed', 'cancelled'];
  var APPROVALS_PAGE = 50;
  var dom = window.WaymarkDom;
  var timeline = window.WaymarkTimeline;
  var approvals = window.WaymarkApprovals;
  var element = dom.element;
  var badge = dom.badge;
  // waiting: the cursor of each approvals page seen so far (null for the first) and which is shown.
  var state = { filter: 'all', limit: 50, token: null, timer: null, waiting: { cursors: [null], page: 0 } };
  var detail;
  var streams;

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
    dom.fill(problem, message || '');
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
      var row = element('tr', { className: run.runId === detail.selected() ? 'selected' : '', data: { runId: run.runId, status: run.status } }, [
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

  function select(runId) {
    resetCancel();
    document.querySelectorAll('#runs-body tr').forEach(function (row) {
      row.classList.toggle('selected', row.dataset.runId === runId);
    });
    Promise.all([detail.select(runId), streams.select(runId)]).catch(function (error) {
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
      dom.fill(button, 'Click again to cancel ' + detail.selected());
      setTimeout(resetCancel, 4000);
      return;
    }
    resetCancel();
    await api('POST', 'runs/' + encodeURIComponent(detail.selected()) + '/cancel', { reason: 'cancelled from the console' });
    await refresh();
  }

  function waitingQuery() {
    var cursor = state.waiting.cursors[state.waiting.page];
    return 'runs?waitingFor=signal&limit=' + APPROVALS_PAGE + (cursor ? '&cursor=' + encodeURIComponent(cursor) : '');
  }

  function renderWaitingPager(page) {
    var waiting = state.waiting;
    if (page.nextCursor) waiting.cursors[waiting.page + 1] = page.nextCursor;
    else waiting.cursors.length = waiting.page + 1;
    byId('waiting-newer').disabled = waiting.page === 0;
    byId('waiting-older').disabled = !page.nextCursor;
    byId('waiting-pager').hidden = waiting.page === 0 && !page.nextCursor;
    byId('waiting-page').textContent = 'runs ' + (waiting.page * APPROVALS_PAGE + 1) + '–' + (waiting.page * APPROVALS_PAGE + page.runs.length);
  }

  function turnWaitingPage(step) {
    var next = state.waiting.page + step;
    if (next < 0 || next >= state.waiting.cursors.length) return;
    state.waiting.page = next;
    void refresh();
  }

  async function refresh() {
    var query = 'runs?limit=' + state.limit + (state.filter === 'all' ? '' : '&status=' + state.filter);
    try {
      var pages = await Promise.all([api('GET', query), api('GET', waitingQuery()), api('GET', 'queues')]);
      renderRuns(pages[0]);
      window.WaymarkQueues.render(byId('queues-body'), byId('queues-empty'), pages[2]);
      approvals.render(byId('waiting-list'), byId('waiting-empty'), pages[1].runs, sendSignal);
      renderWaitingPager(pages[1]);
      await Promise.all([detail.refresh(), streams.refresh()]);
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
    detail = window.WaymarkDetail.create(api, showProblem);
    streams = window.WaymarkStreams.create(api, function () {
      return state.token;
    }, showProblem);
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
    byId('waiting-newer').addEventListener('click', function () {
      turnWaitingPage(-1);
    });
    byId('waiting-older').addEventListener('click', function () {
      turnWaitingPage(1);
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
