/**
 * `streams.js`: a run's durable streams, live, `window.WaymarkStreams.create(api, token,
 * showProblem)`. For the selected run it lists the streams (`GET api/runs/:id/streams`) and
 * follows each one as server-sent events read with `fetch` (an `EventSource` cannot send the
 * token header), reconnecting after the last offset seen. A restart marker drops the chunks
 * its step wrote before it. Control and invisible characters show as marked escapes, line
 * breaks as written. Plain browser JavaScript.
 */
export const CONSOLE_STREAMS_SCRIPT = String.raw`'use strict';
(function () {
  var MAX_SHOWN = 20000;
  var dom = window.WaymarkDom;
  var element = dom.element;

  function create(api, token, showProblem) {
    var state = { runId: null, open: new Map() };

    function text(chunk) {
      return typeof chunk === 'string' ? chunk : JSON.stringify(chunk);
    }

    /** Draws a stream's text: chunks of steps restarted since are already gone. */
    function draw(stream) {
      var shown = stream.parts.map(function (part) {
        return part.text;
      }).join('');
      dom.fill(stream.pre, shown.length > MAX_SHOWN ? '\u2026' + shown.slice(-MAX_SHOWN) : shown, true);
      stream.status.textContent = stream.parts.length + ' chunks' + (stream.ended ? ', ended' : ', live');
    }

    function take(stream, event) {
      var data = JSON.parse(event.data);
      if (event.id !== undefined) stream.next = Number(event.id) + 1;
      if (event.type === 'end') stream.ended = true;
      else if (event.type === 'restart') {
        stream.parts = stream.parts.filter(function (part) {
          return part.seq !== data.seq;
        });
      } else if (event.type === 'message') stream.parts.push({ seq: data.seq, text: text(data.chunk) });
      else if (event.type === 'error') showProblem('stream ' + stream.name + ': ' + data.error);
    }

    /** Parses one server-sent event block into { type, id, data }. */
    function parse(block) {
      var event = { type: 'message', data: '' };
      block.split('\n').forEach(function (line) {
        if (line.indexOf('event: ') === 0) event.type = line.slice(7);
        else if (line.indexOf('id: ') === 0) event.id = line.slice(4);
        else if (line.indexOf('data: ') === 0) event.data += line.slice(6);
      });
      return event.data === '' ? null : event;
    }

    async function follow(runId, stream) {
      while (!stream.ended && state.runId === runId) {
        var url = 'api/runs/' + encodeURIComponent(runId) + '/streams/' + encodeURIComponent(stream.name) + '?from=' + stream.next;
        var response = await fetch(url, { headers: { Authorization: 'Bearer ' + (token() || '') }, signal: stream.abort.signal, cache: 'no-store' });
        if (!response.ok || !response.body) throw new Error('stream ' + stream.name + ': HTTP ' + response.status);
        var reader = response.body.getReader();
        var decoder = new TextDecoder();
        var buffer = '';
        for (;;) {
          var read = await reader.read();
          if (read.done) break;
          buffer += decoder.decode(read.value, { stream: true });
          var blocks = buffer.split('\n\n');
          buffer = blocks.pop();
          blocks.map(parse).forEach(function (event) {
            if (event) take(stream, event);
          });
          draw(stream);
        }
      }
    }

    function open(runId, summary) {
      var pre = element('pre', { className: 'stream-text' });
      var status = element('span', { className: 'muted' });
      var box = element('div', { className: 'stream', data: { stream: summary.name } }, [
        element('h4', { className: 'mono', text: summary.name }),
        status,
        pre,
      ]);
      document.getElementById('streams').append(box);
      var stream = { name: summary.name, next: 0, parts: [], ended: false, pre: pre, status: status, abort: new AbortController() };
      state.open.set(summary.name, stream);
      draw(stream);
      follow(runId, stream).catch(function (error) {
        if (error.name !== 'AbortError') showProblem(error.message);
      });
    }

    function select(runId) {
      state.open.forEach(function (stream) {
        stream.abort.abort();
      });
      state.open = new Map();
      state.runId = runId;
      document.getElementById('streams').replaceChildren();
      return refresh();
    }

    /** Opens the streams the run started writing to since the last look. */
    function refresh() {
      var runId = state.runId;
      if (!runId) return Promise.resolve();
      return api('GET', 'runs/' + encodeURIComponent(runId) + '/streams').then(function (list) {
        if (state.runId !== runId) return;
        list.streams.forEach(function (summary) {
          if (!state.open.has(summary.name)) open(runId, summary);
        });
        document.getElementById('streams-title').hidden = state.open.size === 0;
      });
    }

    return { select: select, refresh: refresh };
  }

  window.WaymarkStreams = { create: create };
})();
`;
