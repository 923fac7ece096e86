/**
 * `dom.js`: what the other console scripts share, `window.WaymarkDom`: building elements
 * whose text is set with `textContent` (never parsed as markup), status badges, stored values
 * (short ones inline, long ones expandable), and how times and durations read. Plain browser
 * JavaScript, no build step.
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

  var SHORT_VALUE = 80;

  /**
   * A stored value ({ json, truncated, length } from the API) as text: inline when short,
   * else its start, expanding (a details element) to all the page has — pretty-printed when
   * whole, with how much more there is when cut.
   */
  function value(stored) {
    if (!stored) return element('span');
    if (!stored.truncated && stored.json.length <= SHORT_VALUE) {
      return element('span', { className: 'value', text: stored.json });
    }
    var full = stored.json;
    if (stored.truncated) {
      full += '\u2026\n(' + (stored.length - stored.json.length) + ' more characters: waymark show <run> --json prints it whole)';
    } else {
      try {
        full = JSON.stringify(JSON.parse(stored.json), null, 2);
      } catch (error) {
        full = stored.json;
      }
    }
    return element('details', { className: 'value' }, [
      element('summary', { text: stored.json.slice(0, SHORT_VALUE) + '\u2026' }),
      element('pre', { text: full }),
    ]);
  }

  /** UTC to the second, as the CLI prints it: 2026-05-01 12:00:00Z. */
  function formatTime(iso) {
    return iso ? new Date(iso).toISOString().slice(0, 19).replace('T', ' ') + 'Z' : '';
  }

  window.WaymarkDom = { element: element, badge: badge, value: value, formatMs: formatMs, formatTime: formatTime };
})();
`;
