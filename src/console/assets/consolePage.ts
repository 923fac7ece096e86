/**
 * The console page. It holds no data and no inline script or style (the CSP forbids both):
 * `app.js` fills it from the JSON API, always as text (`WaymarkDom.fill`), never as markup.
 */
export const CONSOLE_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>waymark console</title>
    <link rel="stylesheet" href="console.css">
    <script defer src="dom.js"></script>
    <script defer src="timeline.js"></script>
    <script defer src="approvals.js"></script>
    <script defer src="conversation.js"></script>
    <script defer src="detail.js"></script>
    <script defer src="streams.js"></script>
    <script defer src="queues.js"></script>
    <script defer src="app.js"></script>
  </head>
  <body>
    <header>
      <h1>waymark</h1>
      <span id="refreshed" class="muted"></span>
    </header>
    <section id="token-panel" class="panel notice" hidden>
      <p>
        API calls need the console token. Open the URL <code>waymark console</code> printed
        (it ends with <code>#token=…</code>), or paste the token:
      </p>
      <form id="token-form">
        <input id="token-input" type="password" autocomplete="off" placeholder="token" aria-label="token">
        <button type="submit">Use token</button>
      </form>
    </section>
    <p id="problem" class="problem" role="alert" hidden></p>
    <main>
      <div class="column">
        <section class="panel" aria-labelledby="waiting-title">
          <h2 id="waiting-title">Waiting for a signal</h2>
          <p id="waiting-empty" class="muted">No run waits for a signal.</p>
          <ul id="waiting-list" class="waiting"></ul>
          <div id="waiting-pager" class="pager" hidden>
            <button id="waiting-newer" type="button">Newer</button>
            <span id="waiting-page" class="muted"></span>
            <button id="waiting-older" type="button">Older</button>
          </div>
        </section>
        <section class="panel" aria-labelledby="queues-title">
          <h2 id="queues-title">Queues</h2>
          <p id="queues-empty" class="muted">No run is queued or running.</p>
          <div class="scroll">
            <table class="runs">
              <thead>
                <tr><th>queue</th><th>pending</th><th>waiting</th><th>running</th><th>running runs</th></tr>
              </thead>
              <tbody id="queues-body"></tbody>
            </table>
          </div>
        </section>
        <section class="panel" aria-labelledby="runs-title">
          <h2 id="runs-title">Runs</h2>
          <div id="filters" class="filters" role="group" aria-label="status filter"></div>
          <div class="scroll">
            <table class="runs">
              <thead>
                <tr><th>run</th><th>workflow</th><th>status</th><th>waiting for</th><th>updated</th></tr>
              </thead>
              <tbody id="runs-body"></tbody>
            </table>
          </div>
          <p id="runs-empty" class="muted" hidden>No runs match.</p>
          <button id="more" type="button" hidden>More</button>
        </section>
      </div>
      <section id="detail" class="panel detail" aria-labelledby="detail-title">
        <h2 id="detail-title">Timeline</h2>
        <p id="detail-empty" class="muted">Pick a run to see its steps.</p>
        <div id="detail-body" hidden>
          <dl id="run-facts" class="facts"></dl>
          <div id="timeline" class="timeline"></div>
          <p id="timeline-note" class="muted" hidden></p>
          <div id="legend" class="legend"></div>
          <table class="steps">
            <thead>
              <tr><th>#</th><th>step</th><th>status</th><th>attempts</th><th>duration</th><th>output</th><th>error</th></tr>
            </thead>
            <tbody id="steps-body"></tbody>
          </table>
          <p id="steps-count" class="muted"></p>
          <button id="steps-more" type="button" hidden>Load more steps</button>
          <h3 id="outcome-title" hidden></h3>
          <pre id="outcome" class="outcome" hidden></pre>
          <h3 id="streams-title" hidden>Streams</h3>
          <div id="streams" class="streams"></div>
          <button id="cancel-run" type="button" class="danger" hidden>Cancel run</button>
        </div>
      </section>
    </main>
  </body>
</html>
`;
