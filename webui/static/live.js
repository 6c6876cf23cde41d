// The live table page: stable reading, a running score of the completed maps, table events and the
// browser camera (getUserMedia frames posted to /api/frame).
"use strict";
(function () {
  const readingBox = document.getElementById("live-reading");
  const scoreBox = document.getElementById("live-score");
  const eventsBox = document.getElementById("live-events");
  let lastScoreKey = null;

  // Completed map cards grouped by seat (cards without a seat count for the whole table).
  function scoreDocument(reading) {
    const groups = new Map();
    for (const card of reading.cards || []) {
      const seat = card.seat !== undefined && card.seat !== null ? "Seat " + card.seat : "Table";
      if (!groups.has(seat)) groups.set(seat, []);
      if (card.complete && card.id) groups.get(seat).push(card.id);
    }
    if (!groups.size) groups.set("Table", []);
    return {
      game: "silver-gold",
      players: [...groups.entries()].map(([name, ids]) => ({ name: name, completed: ids, coins: 0, trophies: [], palms: [] })),
    };
  }

  async function showScore(reading) {
    if (!reading || reading.cards === undefined) {
      if (reading && reading.board) {
        gt.clear(scoreBox).append(gt.el("p", { class: "muted", text: "Board read; judge moves on the Splendor Duel page." }));
      }
      return;
    }
    const doc = scoreDocument(reading);
    const key = JSON.stringify(doc);
    if (key === lastScoreKey) return;
    lastScoreKey = key;
    try {
      const scored = await gt.api("POST", "/api/score", doc);
      gt.clear(scoreBox);
      for (const p of scored.players) {
        scoreBox.append(gt.el("p", { class: "score-line" }, p.name + " — completed maps: ",
          gt.el("span", { class: "total", text: p.total })));
      }
    } catch (e) {
      gt.clear(scoreBox).append(gt.el("p", { class: "bad", text: "Cannot score: " + e.message }));
      lastScoreKey = null;
    }
  }

  function show(reading) {
    if (!reading) return;
    gt.renderReading(readingBox, reading);
    readingBox.dataset.ready = "1";
    showScore(reading);
  }

  // Live verdicts: each confirmed change of the stable state goes to the rules (POST /api/check).
  const verdictBox = document.getElementById("live-verdicts");
  let previous = null;
  let placeholder = true;

  function addVerdict(who, v) {
    if (placeholder) { gt.clear(verdictBox); placeholder = false; }
    // legal === null: the rules refused the reading itself (e.g. a misread token), so no verdict.
    const text = v.legal === null ? "not judged" : v.legal ? "legal" : "illegal";
    const detail = v.reason || (v.shape_card ? "shape on " + v.shape_card + " " + gt.cellsText(v.shape_cells) : "");
    const cls = v.legal === null ? "muted" : v.legal ? "ok" : "bad";
    verdictBox.prepend(gt.el("li", { class: "verdict-line " + cls },
      new Date().toLocaleTimeString() + " " + who + ": " + text + (detail ? " — " + detail : "")));
    while (verdictBox.children.length > 30) verdictBox.removeChild(verdictBox.lastChild);
  }

  async function judgeChanges(state) {
    const before = previous;
    previous = state;
    if (!before) return;
    const oldBoard = gt.boardCells(before);
    const newBoard = gt.boardCells(state);
    if (oldBoard && newBoard && JSON.stringify(oldBoard) !== JSON.stringify(newBoard)) {
      try {
        addVerdict("Splendor Duel board", await gt.api("POST", "/api/check",
          { game: "splendor-duel", before: oldBoard, after: newBoard }));
      } catch (e) { addVerdict("Splendor Duel board", { legal: null, reason: e.message }); }
    }
    const shape = gt.expeditionId(state) || gt.expeditionId(before);
    if (!shape || !state.cards) return;
    const old = new Map((before.cards || []).filter((c) => c.id).map((c) => [c.id, c]));
    const seats = new Map();
    for (const c of state.cards) {
      if (!c.id || !old.has(c.id)) continue;
      const seat = c.seat === null || c.seat === undefined ? "table" : String(c.seat);
      if (!seats.has(seat)) seats.set(seat, { changed: false, cards: [] });
      const group = seats.get(seat);
      const was = old.get(c.id).marked || [];
      if ((c.marked || []).length !== was.length) group.changed = true;
      group.cards.push({ id: c.id, before: was, after: c.marked || [] });
    }
    for (const [seat, group] of seats) {
      if (!group.changed) continue;
      const cards = group.cards.filter((c) => c.after.length !== c.before.length)
        .concat(group.cards.filter((c) => c.after.length === c.before.length)).slice(0, 2);
      const who = seat === "table" ? "Silver & Gold" : "Silver & Gold, seat " + seat;
      try {
        addVerdict(who, await gt.api("POST", "/api/check", { game: "silver-gold", shape: shape, cards: cards }));
      } catch (e) { addVerdict(who, { legal: null, reason: e.message }); }
    }
  }

  async function poll() {
    try {
      const live = await gt.api("GET", "/api/live");
      gt.updateStatus(live.status);
      if (live.state) { show(live.state); judgeChanges(live.state); }
    } catch (e) { /* the status line says when the server is gone */ }
  }

  function addEvent(text) {
    eventsBox.prepend(gt.el("li", { text: new Date().toLocaleTimeString() + " " + text }));
    while (eventsBox.children.length > 50) eventsBox.removeChild(eventsBox.lastChild);
  }

  if (document.getElementById("live-view")) {
    poll();
    setInterval(poll, 1000);
  }
  if (window.EventSource) {
    const es = new EventSource("/api/events");
    es.addEventListener("table", (ev) => {
      const data = JSON.parse(ev.data);
      const e = data.event || {};
      addEvent(e.message || e.kind || JSON.stringify(e));
    });
    es.addEventListener("session", (ev) => {
      const data = JSON.parse(ev.data);
      addEvent("game " + data.session + ": " + data.event.kind);
    });
  }
  document.addEventListener("gt:photo", (ev) => show(ev.detail));

  // Browser camera.
  const start = document.getElementById("cam-start");
  const stop = document.getElementById("cam-stop");
  const video = document.getElementById("cam-video");
  const canvas = document.getElementById("cam-canvas");
  const camStatus = document.getElementById("cam-status");
  let stream = null;
  let timer = null;
  let busy = false;
  let sent = 0;

  async function sendFrame() {
    if (busy || !video.videoWidth) return;
    busy = true;
    const scale = Math.min(1, 1280 / Math.max(video.videoWidth, video.videoHeight));
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.85));
    try {
      const answer = await gt.api("POST", "/api/frame?game=auto", blob);
      sent += 1;
      camStatus.textContent = "Browser camera: " + sent + " frame(s) read";
      camStatus.dataset.frames = String(sent);
      const box = document.getElementById("cam-reading");
      gt.renderReading(box, answer.reading);
      box.dataset.ready = "1";
      if (!document.getElementById("live-view")) show(answer.reading);
    } catch (e) {
      camStatus.textContent = "Browser camera: " + e.message;
    } finally {
      busy = false;
    }
  }

  start.addEventListener("click", async () => {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      camStatus.textContent = "This browser cannot use the camera here (off localhost it needs https: goldtable serve --https).";
      return;
    }
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: { ideal: 1280 } }, audio: false });
    } catch (e) {
      camStatus.textContent = "Camera refused: " + e.message;
      return;
    }
    video.srcObject = stream;
    video.classList.remove("hidden");
    await video.play();
    start.classList.add("hidden");
    stop.classList.remove("hidden");
    camStatus.textContent = "Browser camera on";
    timer = setInterval(sendFrame, 1000);
  });
  stop.addEventListener("click", () => {
    clearInterval(timer);
    if (stream) stream.getTracks().forEach((t) => t.stop());
    video.classList.add("hidden");
    stop.classList.add("hidden");
    start.classList.remove("hidden");
    camStatus.textContent = "Browser camera off";
  });
})();
