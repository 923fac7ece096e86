import { SHOWN_TEXT_PATTERN } from '../../ground/escapedCharacters';

/**
 * `dom.js`: what the other console scripts share, `window.WaymarkDom`: building elements
 * whose text is set as text nodes (never parsed as markup) with every control and invisible
 * format character shown as a marked escape (`fill`, on the CLI's `SHOWN_TEXT_PATTERN`),
 * status badges, stored values (short ones inline, long ones expandable), and how times and
 * durations read. Plain browser JavaScript, no build step.
 */
export const CONSOLE_DOM_SCRIPT = String.raw`'use strict';
(function () {
  var SHOWN = new RegExp(${JSON.stringify(SHOWN_TEXT_PATTERN.source)}, ${JSON.stringify(SHOWN_TEXT_PATTERN.flags)});
  var NAMED = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

  /** The escape of one code point, as the CLI writes it: \x1b, \n, \u202e, \u{e0041}. */
  function escapeOf(char) {
    if (NAMED[char]) return NAMED[char];
    var code = char.codePointAt(0);
    var hex = code.toString(16);
    if (code <= 0xff) return '\\x' + hex.padStart(2, '0');
    return code <= 0xffff ? '\\u' + hex.padStart(4, '0') : '\\u{' + hex + '}';
  }

  /** Whether a match shows as it is: a whole emoji sequence, or a line break a pre shows. */
  function kept(match, sequence, keepLines) {
    return sequence !== undefined || (keepLines === true && (match === '\n' || match === '\t'));
  }

  /**
   * text (any value) with each control and invisible format character as its escape, for
   * where no mark can go (an attribute, an SVG title); keepLines leaves newlines and tabs.
   */
  function shown(text, keepLines) {
    return String(text).replace(SHOWN, function (match, sequence) {
      return kept(match, sequence, keepLines) ? match : escapeOf(match);
    });
  }

  /** The mark of one escaped character: a highlighted box saying which code point it is. */
  function mark(node, char) {
    var svg = node.namespaceURI === 'http://www.w3.org/2000/svg';
    var box = svg ? document.createElementNS(node.namespaceURI, 'tspan') : document.createElement('span');
    box.setAttribute('class', 'escaped');
    var code = 'U+' + char.codePointAt(0).toString(16).toUpperCase().padStart(4, '0');
    if (!svg) box.title = code + ': an invisible or control character, shown escaped';
    box.textContent = escapeOf(char);
    return box;
  }

  /**
   * Replaces node's content with text (any value) as text nodes, never markup: each control
   * and invisible format character (a bidi override reorders what a person checks, a
   * zero-width one hides) shows as its escape in a mark. keepLines leaves newlines and tabs
   * for a pre to show.
   */
  function fill(node, text, keepLines) {
    text = text === undefined || text === null ? '' : String(text);
    var parts = [];
    var last = 0;
    text.replace(SHOWN, function (match, sequence, offset) {
      if (kept(match, sequence, keepLines)) return match;
      if (offset > last) parts.push(text.slice(last, offset));
      parts.push(mark(node, match));
      last = offset + match.length;
      return match;
    });
    if (last < text.length) parts.push(text.slice(last));
    node.replaceChildren.apply(node, parts);
    return node;
  }

  /** An element with text and children; never parses markup. A pre keeps its lines. */
  function element(tag, options, children) {
    var node = document.createElement(tag);
    options = options || {};
    if (options.className) node.className = options.className;
    if (options.text !== undefined && options.text !== null) fill(node, options.text, tag === 'pre');
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

  window.WaymarkDom = { element: element, fill: fill, shown: shown, badge: badge, value: value, formatMs: formatMs, formatTime: formatTime };
})();
`;
