/** The console's stylesheet; step colours are keyed by status class (`status-completed`, …). */
export const CONSOLE_STYLES = `
:root {
  --ink: #1d2330;
  --muted: #6b7385;
  --line: #dde1e8;
  --paper: #f6f7f9;
  --card: #ffffff;
  --completed: #2f9e5b;
  --failed: #d2453f;
  --retrying: #e3a21a;
  --parked: #8a5cd6;
  --started: #3b7dd8;
  --pending: #8d96a8;
  --running: #3b7dd8;
  --waiting: #5d6bd6;
  --needs_attention: #8a5cd6;
  --cancelled: #7b8190;
}
* { box-sizing: border-box; }
body {
  margin: 0;
  font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  color: var(--ink);
  background: var(--paper);
}
header { display: flex; align-items: baseline; gap: 16px; padding: 12px 20px; background: var(--ink); color: #fff; }
header h1 { margin: 0; font-size: 18px; letter-spacing: 0.02em; }
header .muted { color: #b9c0cf; }
main { display: grid; grid-template-columns: minmax(440px, 5fr) 7fr; gap: 16px; padding: 16px 20px; align-items: start; }
.column { display: grid; gap: 16px; }
.column, .column > *, .detail { min-width: 0; }
.panel { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; }
.panel h2 { margin: 0 0 10px; font-size: 15px; }
.notice { margin: 16px 20px 0; }
.problem { margin: 16px 20px 0; padding: 8px 12px; border-radius: 6px; background: #fdecea; color: #8c1d18; }
.muted { color: var(--muted); }
code, pre, .mono { font-family: ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace; font-size: 12.5px; }
button { font: inherit; padding: 4px 10px; border: 1px solid var(--line); border-radius: 6px; background: #fff; cursor: pointer; }
button:hover { border-color: var(--muted); }
button.approve { background: var(--completed); border-color: var(--completed); color: #fff; }
button.reject, button.danger { background: #fff; border-color: var(--failed); color: var(--failed); }
.filters { display: flex; flex-wrap: wrap; gap: 6px; margin-bottom: 10px; }
.filters button[aria-pressed='true'] { background: var(--ink); border-color: var(--ink); color: #fff; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 5px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; }
table.runs tbody tr { cursor: pointer; }
table.runs tbody tr:hover { background: var(--paper); }
table.runs tbody tr.selected { background: #e8eefb; }
table.runs td { white-space: nowrap; }
.scroll { overflow-x: auto; }
td.run-id { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; color: #fff; font-size: 12px; background: var(--pending); white-space: nowrap; }
.badge.status-completed { background: var(--completed); }
.badge.status-failed { background: var(--failed); }
.badge.status-retrying { background: var(--retrying); }
.badge.status-parked, .badge.status-needs_attention { background: var(--parked); }
.badge.status-started, .badge.status-running { background: var(--started); }
.badge.status-waiting { background: var(--waiting); }
.badge.status-cancelled { background: var(--cancelled); }
ul.waiting { list-style: none; margin: 0; padding: 0; display: grid; gap: 10px; }
ul.waiting li { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; }
.pager { display: flex; gap: 10px; align-items: baseline; margin-top: 10px; }
ul.waiting .who { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
ul.waiting textarea { width: 100%; min-height: 42px; margin: 6px 0; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
ul.waiting .proposal[hidden] { display: none; }
ul.waiting .proposal { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; margin-top: 6px; }
ul.waiting .proposal pre.args { flex-basis: 100%; margin: 0; padding: 4px 6px; background: var(--paper); border: 1px solid var(--line); border-radius: 6px; max-height: 160px; overflow: auto; white-space: pre-wrap; word-break: break-all; font-size: 12.5px; }
ul.waiting .actions { display: flex; gap: 8px; align-items: center; }
.message { font-size: 12.5px; }
.message.error { color: var(--failed); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0 0 12px; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; word-break: break-all; }
.timeline svg { display: block; width: 100%; height: auto; }
.timeline .label { font-size: 12px; fill: var(--ink); }
.timeline .note { font-size: 11px; fill: var(--muted); }
.timeline .attempts { font-size: 11px; font-weight: 600; fill: var(--ink); }
.timeline .axis { stroke: var(--line); stroke-width: 1; }
.timeline .track { fill: var(--paper); }
.timeline .bar { fill: var(--pending); }
.timeline .bar.status-completed { fill: var(--completed); }
.timeline .bar.status-failed { fill: var(--failed); }
.timeline .bar.status-retrying { fill: var(--retrying); }
.timeline .bar.status-parked { fill: var(--parked); }
.timeline .bar.status-started { fill: var(--started); }
.timeline .bar.wait { fill-opacity: 0.35; }
.timeline .hatch { fill: url(#waymark-wait-hatch); pointer-events: none; }
.timeline .hatch-line { stroke: #4a5263; stroke-opacity: 0.45; stroke-width: 2; }
.timeline .marker { stroke: var(--retrying); stroke-width: 2; stroke-dasharray: 3 2; }
.legend { display: flex; flex-wrap: wrap; gap: 12px; margin: 8px 0 12px; font-size: 12px; color: var(--muted); }
.legend .swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 4px; vertical-align: -2px; background: var(--pending); }
.legend .swatch.status-completed { background: var(--completed); }
.legend .swatch.status-failed { background: var(--failed); }
.legend .swatch.status-retrying { background: var(--retrying); }
.legend .swatch.status-parked { background: var(--parked); }
.legend .swatch.status-started { background: var(--started); }
.legend .swatch.wait { background: repeating-linear-gradient(135deg, #c9cedb 0 3px, #8e96a8 3px 5px); }
pre.outcome { background: var(--paper); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; white-space: pre-wrap; word-break: break-word; max-height: 240px; overflow: auto; }
pre.stream-text { background: var(--paper); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; white-space: pre-wrap; word-break: break-word; max-height: 240px; overflow: auto; }
.stream h4 { font-size: 12px; margin: 10px 0 2px; display: inline-block; margin-right: 8px; }
h3 { font-size: 13px; margin: 14px 0 6px; }
td.error { color: var(--failed); word-break: break-word; }
details.value summary { cursor: pointer; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; overflow-wrap: anywhere; }
details.value[open] summary { color: var(--muted, #666); }
details.value pre { margin: 4px 0 0; padding: 6px 8px; background: var(--paper); border: 1px solid var(--line); border-radius: 6px; white-space: pre-wrap; word-break: break-word; max-height: 240px; overflow: auto; }
/* A control or invisible character shown as its escape: boxed, so a person checking the text notices it. */
span.escaped { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.92em; padding: 0 2px; margin: 0 1px; border: 1px solid var(--retrying); border-radius: 3px; background: #fff4d6; color: #8c1d18; white-space: nowrap; }
.timeline tspan.escaped { fill: var(--failed); font-weight: 700; }
span.value, dd.value { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; overflow-wrap: anywhere; }
.conversation { display: grid; gap: 4px; min-width: 220px; }
.conversation .message-turn { display: grid; grid-template-columns: max-content 1fr; gap: 2px 8px; padding: 4px 6px; border-left: 3px solid var(--line); background: var(--paper); border-radius: 0 6px 6px 0; }
.conversation .message-turn.role-assistant { border-left-color: var(--started); }
.conversation .message-turn.role-tool { border-left-color: var(--retrying); }
.conversation .role { font-size: 11px; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: 0.03em; }
.conversation .parts { display: grid; gap: 2px; min-width: 0; }
.conversation .part { white-space: pre-wrap; overflow-wrap: anywhere; }
.conversation .part.reasoning { color: var(--muted); font-style: italic; }
.conversation code { overflow-wrap: anywhere; }
.conversation code.tool-name { font-weight: 600; }
.conversation .call-meta { display: flex; flex-wrap: wrap; gap: 12px; font-size: 12px; color: var(--muted); }
.conversation .note { font-size: 12px; }
.conversation dl.tool-facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 0; }
.conversation dl.tool-facts dt { color: var(--muted); font-size: 12px; }
.conversation dl.tool-facts dd { margin: 0; min-width: 0; }
.conversation details.raw summary { cursor: pointer; font-size: 12px; color: var(--muted); }
.conversation details.raw pre { margin: 4px 0 0; padding: 6px 8px; background: var(--paper); border: 1px solid var(--line); border-radius: 6px; white-space: pre-wrap; word-break: break-word; max-height: 240px; overflow: auto; }
@media (max-width: 900px) { main { grid-template-columns: 1fr; } }
`;
