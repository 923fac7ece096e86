// The chat page: loads the transcript page by page, then reads the conversation's stream from
// where the transcript ends, so a reload mid-answer shows that answer from its first token on.
(() => {
  const query = new URLSearchParams(location.search);
  const conversation = query.get('c') || `chat-${crypto.randomUUID()}`;
  if (!query.get('c')) history.replaceState(null, '', `?c=${encodeURIComponent(conversation)}`);
  const base = `/conversations/${encodeURIComponent(conversation)}`;
  const $ = (id) => document.getElementById(id);
  $('conversation').textContent = conversation;

  /** turn number → { user, answer, seq, state, element } */
  const turns = new Map();
  /** message id → its element, for messages sent and not begun yet */
  const queued = new Map();
  /** ids of the messages whose turn began */
  const begun = new Set();
  let current; // the turn being answered
  let lastOffset = -1;
  let events;

  function showTurn(turn, user, answer, state) {
    let shown = turns.get(turn);
    if (!shown) {
      const element = document.createElement('div');
      element.className = 'turn';
      element.dataset.turn = String(turn);
      element.innerHTML = '<p class="user"></p><p class="answer"></p>';
      element.querySelector('.user').textContent = user;
      $('transcript').append(element);
      shown = { user, answer: '', seq: undefined, state, element };
      turns.set(turn, shown);
    }
    shown.answer = answer;
    shown.state = state;
    const paragraph = shown.element.querySelector('.answer');
    paragraph.textContent = answer;
    paragraph.dataset.state = state;
    return shown;
  }

  function onEntry({ offset, seq, chunk }) {
    lastOffset = offset;
    if (typeof chunk === 'string') {
      if (!current || current.state === 'done') return;
      current.seq = seq;
      showTurn(
        Number(current.element.dataset.turn),
        current.user,
        current.answer + chunk,
        'streaming',
      );
    } else if (chunk.type === 'turn') {
      begun.add(chunk.messageId);
      queued.get(chunk.messageId)?.remove();
      queued.delete(chunk.messageId);
      // A turn the transcript had, or begun again after a crash: shown once.
      const known = turns.get(chunk.turn);
      current = known ?? showTurn(chunk.turn, chunk.user, '', 'streaming');
    } else if (chunk.type === 'done') {
      const turn = turns.get(chunk.turn);
      if (turn) showTurn(chunk.turn, turn.user, turn.answer, 'done');
    }
  }

  function onRestart({ offset, seq }) {
    lastOffset = offset;
    // The model call was cut (a crash) and is made again: its partial text goes.
    if (current && current.state !== 'done' && current.seq === seq) {
      showTurn(Number(current.element.dataset.turn), current.user, '', 'streaming');
    }
  }

  async function json(url, init) {
    const response = await fetch(url, init);
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    return response.json();
  }

  function read(token) {
    const from = lastOffset + 1;
    events = new EventSource(
      `/streams/${encodeURIComponent(conversation)}/chat?token=${encodeURIComponent(token)}&from=${from}`,
    );
    events.onmessage = (event) => onEntry(JSON.parse(event.data));
    events.addEventListener('restart', (event) => onRestart(JSON.parse(event.data)));
    events.onerror = () => {
      // The browser reconnects by itself (Last-Event-ID); a refused token (a restarted
      // server with a new secret) closes it for good: ask for a new one.
      if (events.readyState === EventSource.CLOSED) setTimeout(reconnect, 500);
    };
  }

  async function reconnect() {
    try {
      read((await json(`${base}/token`)).token);
    } catch {
      setTimeout(reconnect, 1000);
    }
  }

  let token;
  let started = false;

  async function load() {
    for (let cursor = 0; cursor !== null;) {
      const page = await json(`${base}/transcript?cursor=${cursor}&limit=50`);
      started = page.started;
      for (const turn of page.turns) {
        showTurn(turn.turn, turn.user, turn.answer, 'done');
        begun.add(turn.messageId);
        lastOffset = turn.end - 1;
      }
      token = page.stream.token;
      cursor = page.nextCursor;
    }
    // A new conversation has no stream until its first message starts the run.
    if (started) read(token);
    document.body.dataset.loaded = 'true';
  }

  /** Sends a message; `id` is made once per message, so a retry of it is one turn. */
  async function send(text, id = crypto.randomUUID()) {
    if (!queued.has(id) && !begun.has(id)) {
      const element = document.createElement('p');
      element.className = 'queued';
      element.textContent = text;
      $('queued').append(element);
      queued.set(id, element);
    }
    const receipt = await json(`${base}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id, text }),
    });
    if (!events) read(token);
    return receipt;
  }

  $('composer').addEventListener('submit', (event) => {
    event.preventDefault();
    const text = $('text').value;
    $('text').value = '';
    void send(text);
  });
  window.chat = { send, conversation };
  void load();
})();
