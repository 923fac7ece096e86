/**
 * `timeline.js`: draws one run's steps as an SVG picture, `window.WaymarkTimeline.draw`.
 * A bar per step from its start to its end (or to now while it has none), coloured by
 * status; waits (`signal:…`, `sleep`) hatched; attempts beyond the first as `×N`. Every
 * stored string goes in as text (`WaymarkDom.fill`), control and invisible characters as
 * marked escapes. Plain browser JavaScript, no build step.
 */
export const CONSOLE_TIMELINE_SCRIPT = String.raw`'use strict';
(function () {
  var SVG = 'http://www.w3.org/2000/svg';
  var WIDTH = 780;
  var LABEL = 190;
  var RIGHT = 96;
  var ROW = 40;
  var BAR = 16;
  var TOP = 28;
  var ENDED = ['completed', 'failed', 'cancelled'];
  var dom = window.WaymarkDom;
  var formatMs = dom.formatMs;
  var formatTime = dom.formatTime;

  function svg(name, attributes, text) {
    var node = document.createElementNS(SVG, name);
    Object.keys(attributes || {}).forEach(function (key) {
      node.setAttribute(key, String(attributes[key]));
    });
    // A title is a tooltip, which shows no mark: its escapes are plain text.
    if (text !== undefined && name === 'title') node.textContent = dom.shown(text, true);
    else if (text !== undefined) dom.fill(node, text);
    return node;
  }

  function time(iso) {
    return iso ? new Date(iso).getTime() : null;
  }

  function isWait(step) {
    return step.name === 'sleep' || step.name.indexOf('signal:') === 0;
  }

  /** What the row says under the step name: how long, or what it waits for. */
  function noteFor(step, run, open) {
    if (step.status === 'retrying') {
      return step.nextAttemptAt ? 'next attempt ' + formatTime(step.nextAttemptAt) : 'retrying';
    }
    if (step.status === 'parked') return 'waits for an operator';
    if (open && step.name.indexOf('signal:') === 0) {
      return 'waiting for ' + step.name.slice(7) + (run.wakeAt ? ' until ' + formatTime(run.wakeAt) : '');
    }
    if (open && step.name === 'sleep') {
      return 'sleeping' + (run.wakeAt ? ' until ' + formatTime(run.wakeAt) : '');
    }
    if (open) return step.status === 'started' ? 'started, no outcome yet' : step.status;
    return step.durationMs === null ? '' : formatMs(step.durationMs);
  }

  function rowsOf(detail) {
    var run = detail.run;
    var ended = ENDED.indexOf(run.status) >= 0;
    var start = time(run.createdAt);
    var end = ended ? time(run.updatedAt) : Math.max(time(detail.now), time(run.updatedAt));
    detail.steps.forEach(function (step) {
      start = Math.min(start, time(step.startedAt));
      if (step.finishedAt) end = Math.max(end, time(step.finishedAt));
    });
    var rows = detail.steps.map(function (step) {
      var open = !step.finishedAt;
      return {
        step: step,
        from: time(step.startedAt),
        to: open ? end : time(step.finishedAt),
        open: open,
        wait: isWait(step),
      };
    });
    if (run.status === 'waiting' && !rows.some(function (row) { return row.open; })) {
      rows.push({
        step: { seq: '', name: 'waiting: ' + (run.waitingFor || ''), status: 'started', attempts: 1 },
        from: time(run.updatedAt),
        to: end,
        open: true,
        wait: true,
      });
    }
    return { rows: rows, start: start, end: end };
  }

  function hatchPattern() {
    var defs = svg('defs');
    var pattern = svg('pattern', {
      id: 'waymark-wait-hatch',
      width: 6,
      height: 6,
      patternUnits: 'userSpaceOnUse',
      patternTransform: 'rotate(45)',
    });
    pattern.appendChild(svg('line', { x1: 0, y1: 0, x2: 0, y2: 6, class: 'hatch-line' }));
    defs.appendChild(pattern);
    return defs;
  }

  function drawRow(picture, row, index, x, run) {
    var step = row.step;
    var y = TOP + index * ROW;
    var group = svg('g', {
      class: 'step',
      'data-seq': step.seq,
      'data-step': step.name,
      'data-status': step.status,
    });
    var label = (step.seq === '' ? '' : '#' + step.seq + ' ') + step.name;
    group.appendChild(svg('text', { x: LABEL - 10, y: y + 14, 'text-anchor': 'end', class: 'label' },
      label.length > 28 ? label.slice(0, 27) + '\u2026' : label));
    var left = x(row.from);
    var width = Math.max(3, x(row.to) - left);
    group.appendChild(svg('rect', { x: LABEL, y: y + 2, width: WIDTH - LABEL - RIGHT, height: BAR, class: 'track' }));
    var bar = svg('rect', {
      x: left,
      y: y + 2,
      width: width,
      height: BAR,
      rx: 3,
      class: 'bar status-' + step.status + (row.wait ? ' wait' : ''),
      'data-status': step.status,
    });
    var tip = step.name + ': ' + step.status + ', ' + step.attempts +
      (step.attempts === 1 ? ' attempt' : ' attempts') +
      (step.durationMs === null || step.durationMs === undefined ? '' : ', ' + formatMs(step.durationMs)) +
      (step.error ? '\n' + step.error.name + ': ' + step.error.message : '');
    bar.appendChild(svg('title', {}, tip));
    group.appendChild(bar);
    if (row.wait) {
      group.appendChild(svg('rect', { x: left, y: y + 2, width: width, height: BAR, rx: 3, class: 'hatch' }));
    }
    var note = noteFor(step, run, row.open);
    var rightward = left < LABEL + (WIDTH - LABEL - RIGHT) * 0.55;
    group.appendChild(svg('text', {
      x: rightward ? left : left + width,
      y: y + 31,
      'text-anchor': rightward ? 'start' : 'end',
      class: 'note',
    }, note));
    if (step.attempts > 1) {
      group.appendChild(svg('text', { x: left + width + 5, y: y + 14, class: 'attempts' }, '\u00d7' + step.attempts));
    }
    picture.appendChild(group);
  }

  /** Replaces the content of container with the picture of detail ({ run, steps, now }). */
  function draw(container, detail) {
    var layout = rowsOf(detail);
    var span = Math.max(layout.end - layout.start, 1);
    var plot = WIDTH - LABEL - RIGHT;
    var x = function (t) {
      return LABEL + ((t - layout.start) / span) * plot;
    };
    var height = TOP + Math.max(layout.rows.length, 1) * ROW + 4;
    var picture = svg('svg', {
      viewBox: '0 0 ' + WIDTH + ' ' + height,
      width: WIDTH,
      height: height,
      role: 'img',
      'aria-label': 'step timeline of run ' + dom.shown(detail.run.runId),
    });
    picture.appendChild(hatchPattern());
    picture.appendChild(svg('line', { x1: LABEL, y1: TOP - 8, x2: LABEL + plot, y2: TOP - 8, class: 'axis' }));
    picture.appendChild(svg('text', { x: LABEL, y: TOP - 13, class: 'note' }, formatTime(new Date(layout.start).toISOString())));
    picture.appendChild(svg('text', { x: LABEL + plot, y: TOP - 13, 'text-anchor': 'end', class: 'note' },
      '+' + formatMs(span) + (ENDED.indexOf(detail.run.status) >= 0 ? '' : ' (now)')));
    layout.rows.forEach(function (row, index) {
      drawRow(picture, row, index, x, detail.run);
    });
    if (layout.rows.length === 0) {
      picture.appendChild(svg('text', { x: LABEL, y: TOP + 14, class: 'note' }, 'no steps recorded yet'));
    }
    container.replaceChildren(picture);
  }

  /** The colour key under the picture. */
  function legend(container) {
    var entries = [
      ['status-completed', 'completed'],
      ['status-failed', 'failed'],
      ['status-retrying', 'retrying'],
      ['status-parked', 'parked'],
      ['status-started', 'started'],
      ['wait', 'waiting (signal, sleep)'],
    ];
    container.replaceChildren.apply(container, entries.map(function (entry) {
      return dom.element('span', {}, [dom.element('span', { className: 'swatch ' + entry[0] }), entry[1]]);
    }));
  }

  window.WaymarkTimeline = { draw: draw, legend: legend };
})();
`;
