// Silver & Gold game page. The game's state is replayed from the session's recorded events, so a
// reload or a server restart shows exactly what was stored. Every verdict comes from the rules
// through POST /api/sessions/<id>/turns; coins, palms and trophies (claimed in turn order from the
// start player) come from GET /api/sessions/<id>/sheets. This script only shows and collects.
"use strict";
(async function () {
  const session = gt.readJSON("session-data");
  if (!session) return;
  const EXPEDITIONS = [["e1", "domino"], ["e2", "straight 3"], ["e3", "straight 3"], ["e4", "bent 3"],
    ["e5", "bent 3"], ["e6", "T (4)"], ["e7", "L (4)"], ["e8", "square (4)"]];
  const SIZE = 4;
  const SYMBOLS = { C: "●", P: "♣", X: "✚" };
  let catalog = {};        // card id -> {colour, points, rows}
  let state = null;
  let sheets = null;       // the server's score sheets: {turn, start_seat, trophies_left, players: {seat: {...}}}
  const pending = {};      // seat -> [Set("r,c"), Set("r,c")]: the marks now on the cards
  const illegal = {};      // seat -> Set("id:r,c") of the last illegal turn's new cells
  let live = null;
  let noting = null;       // an expedition id being recorded from the camera

  const key = (c) => c[0] + "," + c[1];
  const unkey = (k) => k.split(",").map(Number);
  const cellsOf = (set) => [...set].map(unkey).sort((a, b) => a[0] - b[0] || a[1] - b[1]);

  function blank(p) {
    return { seat: p.seat, name: p.name, start: p.start_player, cards: [{ id: "", marks: [] }, { id: "", marks: [] }],
      completed: [], coins: 0, palms: [], trophies: [] };
  }

  function replay(events) {
    const s = { players: {}, order: [], expedition: null, expeditions: 0, turns: [], finished: null };
    for (const p of session.players) { s.players[p.seat] = blank(p); s.order.push(p.seat); }
    for (const e of events) {
      const pl = e.payload || {};
      if (e.kind === "note" && pl.expedition) { s.expedition = pl.expedition; s.expeditions += 1; }
      if (e.kind === "correction" && s.players[pl.seat] && pl.set) {
        const p = s.players[pl.seat];
        for (const k of ["cards", "completed", "coins", "palms", "trophies"]) if (k in pl.set) p[k] = pl.set[k];
      }
      if (e.kind === "turn" && s.players[pl.seat]) {
        const p = s.players[pl.seat];
        const v = pl.verdict || {};
        (pl.input.cards || []).forEach((c, i) => {
          if (i < 2) p.cards[i] = { id: c.id, marks: v.legal ? c.after : c.before };
        });
        s.turns.push({ seq: e.seq, seat: pl.seat, name: p.name, verdict: v, input: pl.input });
      }
      if (e.kind === "finish") s.finished = pl.result;
    }
    for (const [seat, sheet] of Object.entries((sheets && sheets.players) || {})) {
      const p = s.players[seat];
      if (p) { p.coins = sheet.coins; p.palms = sheet.palms; p.trophies = sheet.trophies; }
    }
    if (sheets) { s.turnNumber = sheets.turn; s.startSeat = sheets.start_seat; s.trophiesLeft = sheets.trophies_left; }
    return s;
  }

  // The score sheets are the rules' business: fetched from the server after every change.
  async function refresh() {
    try {
      sheets = await gt.api("GET", "/api/sessions/" + session.id + "/sheets");
    } catch (e) { /* keep the last sheets */ }
    state = replay(session.events);
  }

  function resetPending(seat) {
    const p = state.players[seat];
    pending[seat] = p.cards.map((c) => new Set((c.marks || []).map(key)));
  }

  async function post(url, body) {
    const res = await gt.api("POST", url, body);
    return res;
  }

  async function record(kind, payload) {
    const ev = await post("/api/sessions/" + session.id + "/events", { kind: kind, payload: payload });
    session.events.push(ev);
    await refresh();
    render();
    return ev;
  }

  // -- expedition ------------------------------------------------------------------------------
  function renderExpeditions() {
    const box = gt.clear(document.getElementById("expeditions"));
    const shapes = catalog.__expeditions || EXPEDITIONS;
    for (const [id, label] of shapes) {
      box.append(gt.el("button", { type: "button", class: state.expedition === id ? "on" : null, "data-shape": id,
        onclick: () => record("note", { expedition: id, source: "tap" }) }, id + " · " + label));
    }
    const played = state.turnNumber !== undefined ? state.turnNumber : state.expeditions;
    const round = Math.max(1, Math.ceil(played / 7));
    document.getElementById("round").textContent = String(Math.min(4, round));
    document.getElementById("turn").textContent = String(Math.max(1, ((played - 1) % 7) + 1));
    const left = document.getElementById("trophies-left");
    if (left) left.textContent = state.trophiesLeft ? (listText(state.trophiesLeft) || "none") : "?";
  }

  // -- players ---------------------------------------------------------------------------------
  function grid(seat, i) {
    const p = state.players[seat];
    const card = p.cards[i];
    const accepted = new Set((card.marks || []).map(key));
    const info = catalog[card.id];
    const rows = info ? info.rows : null;
    const height = rows ? rows.length : SIZE;
    const width = rows ? rows[0].length : SIZE;
    const g = gt.el("div", { class: "mapgrid", role: "grid", style: "grid-template-columns: repeat(" + width + ", 2.2rem)" });
    for (let r = 0; r < height; r++) {
      for (let c = 0; c < width; c++) {
        const k = r + "," + c;
        const symbol = rows ? rows[r][c] : "#";
        if (symbol === ".") {
          g.append(gt.el("span", { class: "water", title: "water" }));
          continue;
        }
        let cls = accepted.has(k) ? "marked" : pending[seat][i].has(k) ? "new" : "";
        if ((illegal[seat] || new Set()).has(card.id + ":" + k)) cls += " illegal";
        g.append(gt.el("button", { type: "button", class: cls, title: "(" + r + "," + c + ")", "aria-label": "cell " + k,
          onclick: () => {
            if (accepted.has(k)) return;
            const set = pending[seat][i];
            if (set.has(k)) set.delete(k); else set.add(k);
            render();
          } }, accepted.has(k) || pending[seat][i].has(k) ? "✕" : (SYMBOLS[symbol] || "")));
      }
    }
    return g;
  }

  function listText(list) { return (list || []).join(", "); }
  function parseList(text) {
    return text.split(/[ ,;]+/).filter((x) => x !== "").map((x) => (/^-?\d+$/.test(x) ? Number(x) : x));
  }

  function renderPlayers() {
    const box = gt.clear(document.getElementById("players"));
    for (const seat of state.order) {
      const p = state.players[seat];
      if (!pending[seat]) resetPending(seat);
      const cards = gt.el("div", { class: "cards" });
      p.cards.forEach((card, i) => {
        const idInput = gt.el("input", { value: card.id, size: "4", placeholder: "t…", "aria-label": p.name + " card " + (i + 1),
          onchange: (ev) => {
            const next = p.cards.map((c) => ({ id: c.id, marks: c.marks }));
            next[i] = { id: ev.target.value.trim(), marks: [] };
            record("correction", { seat: seat, set: { cards: next } }).then(() => resetPending(seat)).then(render);
          } });
        const info = catalog[card.id];
        cards.append(gt.el("div", { class: "mapcard" + (info ? " colour-" + info.colour : ""), "data-card": card.id },
          gt.el("div", {}, "Card ", idInput, " ",
            gt.el("button", { type: "button", title: "move this completed card to the score pile", onclick: () => {
              if (!card.id) return;
              const next = p.cards.map((c) => ({ id: c.id, marks: c.marks }));
              next[i] = { id: "", marks: [] };
              record("correction", { seat: seat, set: { cards: next, completed: p.completed.concat([card.id]) } })
                .then(() => resetPending(seat)).then(render);
            } }, "Completed")),
          info ? gt.el("div", { class: "muted" }, info.colour + " · " + info.points + " points") : null,
          grid(seat, i)));
      });
      const num = (label, value, onchange) => gt.el("label", {}, label + " ",
        gt.el("input", { value: String(value), class: "num", "aria-label": p.name + " " + label, onchange: onchange }));
      box.append(gt.el("div", { class: "player", "data-seat": String(seat) },
        gt.el("h3", {}, p.name + " (seat " + seat + ")" +
          ((state.startSeat !== undefined ? String(state.startSeat) === String(seat) : p.start) ? " · start player" : "")),
        cards,
        gt.el("div", {},
          gt.el("button", { type: "button", class: "check-turn", onclick: () => checkTurn(seat) }, "Check turn"),
          gt.el("button", { type: "button", onclick: () => { resetPending(seat); render(); } }, "Undo marks")),
        gt.el("div", {},
          num("coins", p.coins, (ev) => record("correction", { seat: seat, set: { coins: Number(ev.target.value) } })),
          num("palms", listText(p.palms), (ev) => record("correction", { seat: seat, set: { palms: parseList(ev.target.value) } })),
          num("trophies", listText(p.trophies), (ev) => record("correction", { seat: seat, set: { trophies: parseList(ev.target.value) } }))),
        gt.el("p", { class: "muted" }, "Score pile: " + (listText(p.completed) || "none"))));
    }
  }

  function verdictText(v) {
    if (v.legal) {
      const parts = [];
      if (v.single_cell) parts.push("single cell on " + v.shape_card + " " + gt.cellsText(v.shape_cells));
      else parts.push("shape on " + v.shape_card + " " + gt.cellsText(v.shape_cells));
      if ((v.bonus_cells || []).length) parts.push("bonus " + v.bonus_cells.map((b) => b.card + " (" + b.cell.join(",") + ")").join(" "));
      if (v.coins) parts.push("+" + v.coins + " coin(s)");
      if ((v.palms || []).length) parts.push("palms " + v.palms.join(", "));
      return "Legal: " + parts.join(" · ");
    }
    return "Illegal: " + v.reason;
  }

  async function checkTurn(seat) {
    const p = state.players[seat];
    const box = document.getElementById("verdict");
    if (!state.expedition) { box.className = "verdict illegal"; box.textContent = "Choose the expedition card first."; return; }
    const cards = [];
    p.cards.forEach((c, i) => {
      if (c.id) cards.push({ id: c.id, before: c.marks || [], after: cellsOf(pending[seat][i]) });
    });
    const doc = { game: "silver-gold", shape: state.expedition, cards: cards, coins: p.coins, palm_boxes_used: p.palms.length,
      display_palms: Number(document.getElementById("display-palms").value) || 0 };
    try {
      const res = await post("/api/sessions/" + session.id + "/turns", { check: doc, seat: seat });
      session.events.push(res.event);
      await refresh();
      const v = res.verdict;
      illegal[seat] = new Set();
      if (!v.legal) {
        for (const c of cards) {
          const before = new Set(c.before.map(key));
          for (const cell of c.after) if (!before.has(key(cell))) illegal[seat].add(c.id + ":" + key(cell));
        }
      }
      if (v.legal) resetPending(seat);
      box.className = "verdict " + (v.legal ? "legal" : "illegal");
      box.textContent = p.name + " — " + verdictText(v);
      render();
    } catch (e) {
      box.className = "verdict illegal";
      box.textContent = e.message;
    }
  }

  function renderTurns() {
    const box = gt.clear(document.getElementById("turns"));
    for (const t of state.turns.slice().reverse()) {
      box.append(gt.el("li", { class: t.verdict.legal ? "ok" : "bad" }, t.name + ": " + verdictText(t.verdict)));
    }
  }

  // -- live marks ------------------------------------------------------------------------------
  function seatMatches(cardSeat, p) {
    if (cardSeat === null || cardSeat === undefined) return false;
    const s = String(cardSeat).toLowerCase();
    return s === String(p.seat) || s === "seat " + p.seat || s === p.name.toLowerCase();
  }

  function applyLive(reading) {
    if (!reading || !reading.cards || !document.getElementById("follow-camera").checked) return;
    live = reading;
    const sig = () => JSON.stringify(state.order.map((seat) => (pending[seat] || []).map((set) => [...set].sort())));
    const before = sig();
    for (const seat of state.order) {
      const p = state.players[seat];
      if (!pending[seat]) resetPending(seat);
      p.cards.forEach((c, i) => {
        const seen = reading.cards.find((r) => r.id && r.id === c.id);
        if (seen) pending[seat][i] = new Set((seen.marked || []).map(key).concat((c.marks || []).map(key)));
      });
    }
    assignSeen(reading);
    const exp = gt.expeditionId(reading);
    if (exp && exp !== state.expedition && exp !== noting && /^e[1-8]$/.test(exp)) {
      noting = exp;
      record("note", { expedition: exp, source: "camera" }).finally(() => { noting = null; });
      document.getElementById("expedition-source").textContent = "Expedition card read by the camera: " + exp;
    }
    if (sig() !== before) renderPlayers();
  }

  // A card the camera sees at a player's seat that is not yet one of their active cards fills an
  // empty slot (recorded as a correction, so it survives a reload).
  let assigning = false;
  function assignSeen(reading) {
    if (assigning) return;
    const known = new Set();
    for (const seat of state.order) {
      const p = state.players[seat];
      p.cards.forEach((c) => known.add(c.id));
      p.completed.forEach((id) => known.add(id));
    }
    for (const seat of state.order) {
      const p = state.players[seat];
      const free = p.cards.findIndex((c) => !c.id);
      if (free < 0) continue;
      const seen = reading.cards.find((r) => r.id && !r.complete && !known.has(r.id) && seatMatches(r.seat, p));
      if (!seen) continue;
      const next = p.cards.map((c) => ({ id: c.id, marks: c.marks }));
      next[free] = { id: seen.id, marks: seen.marked || [] };
      assigning = true;
      record("correction", { seat: seat, set: { cards: next }, source: "camera" })
        .then(() => resetPending(seat)).then(render).finally(() => { assigning = false; });
      return;
    }
  }

  async function poll() {
    try {
      const res = await gt.api("GET", "/api/live");
      gt.updateStatus(res.status);
      if (res.state) applyLive(res.state);
    } catch (e) { /* shown by the status line */ }
  }

  // -- game end --------------------------------------------------------------------------------
  function renderFinal() {
    const box = gt.clear(document.getElementById("final-form"));
    for (const seat of state.order) {
      const p = state.players[seat];
      box.append(gt.el("fieldset", { "data-seat": String(seat) }, gt.el("legend", { text: p.name }),
        gt.el("label", {}, "completed cards ", gt.el("input", { name: "completed", value: listText(p.completed) })),
        gt.el("label", {}, "coins ", gt.el("input", { name: "coins", class: "num", value: String(p.coins) })),
        gt.el("label", {}, "trophies ", gt.el("input", { name: "trophies", value: listText(p.trophies) })),
        gt.el("label", {}, "palms ", gt.el("input", { name: "palms", value: listText(p.palms) }))));
    }
  }

  async function readPiles() {
    try {
      const res = await gt.api("GET", "/api/live");
      const cards = ((res.state || {}).cards || []).filter((c) => c.complete && c.id);
      for (const fs of document.querySelectorAll("#final-form fieldset")) {
        const p = state.players[fs.dataset.seat];
        const input = fs.querySelector("[name=completed]");
        const have = new Set(parseList(input.value).map(String));
        for (const c of cards) if (seatMatches(c.seat, p) || state.order.length === 1) have.add(c.id);
        input.value = [...have].join(", ");
      }
      const loose = cards.filter((c) => !state.order.some((s) => seatMatches(c.seat, state.players[s])));
      document.getElementById("final-error").textContent = loose.length && state.order.length > 1
        ? "Completed cards seen but not in a seat zone: " + loose.map((c) => c.id).join(", ") + " — add them by hand." : "";
    } catch (e) {
      document.getElementById("final-error").textContent = e.message;
    }
  }

  async function confirmFinal() {
    const players = [...document.querySelectorAll("#final-form fieldset")].map((fs) => {
      const p = state.players[fs.dataset.seat];
      const coins = fs.querySelector("[name=coins]").value.trim();
      return { name: p.name, completed: parseList(fs.querySelector("[name=completed]").value).map(String),
        coins: /^\d+$/.test(coins) ? Number(coins) : coins,
        trophies: parseList(fs.querySelector("[name=trophies]").value), palms: parseList(fs.querySelector("[name=palms]").value) };
    });
    const err = document.getElementById("final-error");
    try {
      const done = await post("/api/sessions/" + session.id + "/finish", { score: { game: "silver-gold", players: players } });
      err.textContent = "";
      const last = done.events[done.events.length - 1];
      gt.renderScore(document.getElementById("final-result"), last.payload.result);
    } catch (e) {
      err.textContent = e.message;
    }
  }

  function render() {
    renderExpeditions();
    renderPlayers();
    renderTurns();
  }

  try {
    const data = await gt.api("GET", "/api/catalog/silver-gold");
    for (const c of data.cards) catalog[c.id] = c;
    catalog.__expeditions = data.expeditions.map((e) => [e.id, e.name]);
  } catch (e) { /* without the table the grids are plain 4x4 */ }
  await refresh();
  const palmsInput = gt.el("label", {}, "Palm trees on the display's face-up cards: ",
    gt.el("input", { id: "display-palms", class: "num", type: "number", min: "0", value: "0" }));
  document.getElementById("expeditions").before(palmsInput);
  render();
  renderFinal();
  if (state.finished) gt.renderScore(document.getElementById("final-result"), state.finished);
  document.getElementById("read-piles").addEventListener("click", readPiles);
  document.getElementById("confirm-final").addEventListener("click", confirmFinal);
  if (new URLSearchParams(window.location.search).has("manual")) document.getElementById("follow-camera").checked = false;
  if (session.status === "active") { poll(); setInterval(poll, 1500); }
})();
