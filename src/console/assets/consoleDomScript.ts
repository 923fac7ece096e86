/**
 * `dom.js`: what the other console scripts share, `window.WaymarkDom`: building elements
 * whose text is set with `textContent` (never parsed as markup), status badges, and how
 * times and durations read. Plain browser JavaScript, no build step.
 */
export const CONSOLE_DOM_SCRIPT = String.raw`'use strict';
(function () {
  /** An element with text and children; never parses markup. */
  function element(tag, options, children) {
    var node = document.createElement(tag);
    options = options || {};
    if (options.className) node.className = options.className;
    if (options.text !== undefined && options.text !== null) node.textContent = String(options.text);
    Object.keys(options.data || {}).forEach(function (key) {
      node.dataset[key] = String(options.data[key]);
    });
    (children || []).forEach(function (child) {
      node.append(child);
    });
    return node;
  }

  function badge(status) {
    return element('span', { className: 'badge status-' + status, text: status });
  }

  function formatMs(ms) {
    if (ms < 1000) return Math.round(ms) + ' ms';
    if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 ? 1 : 0) + ' s';
    if (ms < 3600000) return Math.floor(ms / 60000) + 'm ' + Math.round((ms % 60000) / 1000) + 's';
    if (ms < 86400000) return Math.floor(ms / 3600000) + 'h ' + Math.round((ms % 3600000) / 60000) + 'm';
    return Math.floor(ms / 86400000) + 'd ' + Math.round((ms % 86400000) / 3600000) + 'h';
  }

  /** UTC to the second, as the CLI prints it: 2026-05-01 12:00:00Z. */
  function formatTime(iso) {
    return iso ? new Date(iso).toISOString().slice(0, 19).replace('T', ' ') + 'Z' : '';
  }

  window.WaymarkDom = { element: element, badge: badge, formatMs: formatMs, formatTime: formatTime };
})();
`;
