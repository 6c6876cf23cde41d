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

  // Live verdicts: the server judges each confirmed change with the rules, in the order the
  // changes happened (webui.live_judge); a turn re-judged later replaces its earlier line.
  const verdictBox = document.getElementById("live-verdicts");
  let shownKey = null;

  function verdictLine(item) {
    const v = item.verdict || {};
    // legal === null: not judged (the rules refused the reading, or the board was set up anew).
    const text = v.legal === null || v.legal === undefined ? "not judged" : v.legal ? "legal" : "illegal";
    const detail = v.reason || (v.shape_card ? "shape on " + v.shape_card + " " + gt.cellsText(v.shape_cells) :
      v.action ? v.action + " " + gt.cellsText(v.cells) : "");
    const cls = v.legal === null || v.legal === undefined ? "muted" : v.legal ? "ok" : "bad";
    const shape = item.input && item.input.shape ? " (" + item.input.shape + ")" : "";
    return gt.el("li", { class: "verdict-line " + cls, "data-key": item.key },
      "t=" + Number(item.t).toFixed(1) + "s " + item.who + shape + ": " + text + (detail ? " — " + detail : ""));
  }

  function showVerdicts(items) {
    if (!verdictBox || !items || !items.length) return;
    const key = items.map((i) => i.seq).join(",");
    if (key === shownKey) return;
    shownKey = key;
    const latest = new Map();
    for (const item of items) latest.set(item.key, item);
    gt.clear(verdictBox);
    for (const item of [...latest.values()].sort((a, b) => b.seq - a.seq)) verdictBox.append(verdictLine(item));
  }

  async function poll() {
    try {
      const live = await gt.api("GET", "/api/live");
      gt.updateStatus(live.status);
      if (live.state) show(live.state);
      showVerdicts(live.verdicts);
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
