// Splendor Duel game page. State is replayed from the recorded events; each move's verdict comes
// from the rules (infer_board_change) through POST /api/sessions/<id>/turns.
"use strict";
(function () {
  const session = gt.readJSON("session-data");
  if (!session) return;
  const EMPTY_BOARD = [".....", ".....", ".....", ".....", "....."];
  let state = null;
  let liveBoard = null;

  function replay(events) {
    const players = session.players;
    const start = (players.find((p) => p.start_player) || players[0]).seat;
    const s = { board: EMPTY_BOARD.slice(), turn: start, privileges: {}, moves: [], finished: null, boardSet: false };
    for (const p of players) s.privileges[p.seat] = p.seat === start ? 0 : 1;
    const other = (seat) => (players.find((p) => p.seat !== seat) || {}).seat;
    for (const e of events) {
      const pl = e.payload || {};
      if (e.kind === "note" || e.kind === "correction") {
        if (pl.board) { s.board = pl.board.slice(); s.boardSet = true; }
        if (pl.turn !== undefined) s.turn = pl.turn;
        if (pl.privileges) for (const [k, v] of Object.entries(pl.privileges)) s.privileges[k] = v;
      }
      if (e.kind === "move") {
        const v = pl.verdict || {};
        const name = (players.find((p) => p.seat === pl.seat) || {}).name || "?";
        s.moves.push({ seq: e.seq, seat: pl.seat, name: name, verdict: v });
        if (!v.legal) continue;
        s.board = pl.input.after.slice();
        s.boardSet = true;
        const mover = pl.seat;
        const opp = other(mover);
        s.privileges[mover] = Math.max(0, (s.privileges[mover] || 0) - (v.privilege_cells || []).length);
        if (opp !== undefined) {
          s.privileges[opp] = Math.min(3, (s.privileges[opp] || 0) + (Number(v.privileges_to_opponent) || 0));
          const excess = s.privileges[opp] + s.privileges[mover] - 3;
          if (excess > 0) s.privileges[mover] = Math.max(0, s.privileges[mover] - excess);
        }
        if (/take|reserve_gold/.test(v.action || "") && opp !== undefined) s.turn = opp;
      }
      if (e.kind === "finish") s.finished = pl.result;
    }
    return s;
  }

  async function record(kind, payload) {
    const ev = await gt.api("POST", "/api/sessions/" + session.id + "/events", { kind: kind, payload: payload });
    session.events.push(ev);
    state = replay(session.events);
    render();
  }

  function editedBoard() {
    return [...document.querySelectorAll("#board-edit input")].map((i) => i.value.trim().toUpperCase());
  }

  function renderEditor(rows) {
    const box = gt.clear(document.getElementById("board-edit"));
    rows.forEach((row, r) => box.append(gt.el("input", { value: row, maxlength: "5", "aria-label": "board row " + (r + 1) })));
  }

  function verdictText(v) {
    return (v.legal ? "Legal " : "Illegal ") + (v.action || "") + (v.cells && v.cells.length ? " " + gt.cellsText(v.cells) : "") +
      (v.reason ? ": " + v.reason : "") + (v.privileges_to_opponent ? " · opponent takes " + v.privileges_to_opponent + " privilege(s)" : "");
  }

  function render() {
    const mover = session.players.find((p) => p.seat === state.turn) || session.players[0];
    document.getElementById("whose-turn").textContent = mover.name + " to play";
    gt.clear(document.getElementById("board-accepted")).replaceWith(
      Object.assign(gt.boardNode(state.board), { id: "board-accepted" }));
    gt.clear(document.getElementById("board-live")).replaceWith(
      Object.assign(gt.boardNode(liveBoard || state.board, state.board), { id: "board-live" }));
    const priv = gt.clear(document.getElementById("privileges"));
    for (const p of session.players) {
      priv.append(gt.el("label", {}, p.name + " ", gt.el("input", { class: "num", type: "number", min: "0", max: "3",
        value: String(state.privileges[p.seat] || 0), "aria-label": p.name + " privileges",
        onchange: (ev) => record("correction", { privileges: { [p.seat]: Number(ev.target.value) } }) })));
    }
    const moves = gt.clear(document.getElementById("moves"));
    for (const m of state.moves.slice().reverse()) {
      moves.append(gt.el("li", { class: m.verdict.legal ? "ok" : "bad" }, m.name + ": " + verdictText(m.verdict)));
    }
  }

  async function judge() {
    const box = document.getElementById("verdict");
    const after = editedBoard();
    const doc = { game: "splendor-duel", before: state.board, after: after };
    try {
      const res = await gt.api("POST", "/api/sessions/" + session.id + "/turns", { check: doc, seat: state.turn });
      session.events.push(res.event);
      state = replay(session.events);
      box.className = "verdict " + (res.verdict.legal ? "legal" : "illegal");
      box.textContent = verdictText(res.verdict);
      render();
    } catch (e) {
      box.className = "verdict illegal";
      box.textContent = e.message;
    }
  }

  async function poll() {
    try {
      const res = await gt.api("GET", "/api/live");
      gt.updateStatus(res.status);
      const cells = gt.boardCells(res.state);
      if (!document.getElementById("follow-camera").checked) return;
      if (cells && JSON.stringify(cells) !== JSON.stringify(liveBoard)) {
        liveBoard = cells;
        renderEditor(cells);
        render();
      }
    } catch (e) { /* shown by the status line */ }
  }

  function renderFinal() {
    const box = gt.clear(document.getElementById("final-form"));
    for (const p of session.players) {
      box.append(gt.el("fieldset", { "data-seat": String(p.seat) }, gt.el("legend", { text: p.name }),
        gt.el("label", {}, "cards ", gt.el("input", { name: "cards", size: "40", placeholder: "L1-01, L2-05=red" })),
        gt.el("label", {}, "royals ", gt.el("input", { name: "royals", placeholder: "R1" }))));
    }
  }

  function parseCards(text) {
    return text.split(/[ ,;]+/).filter((x) => x).map((x) => {
      const [id, colour] = x.split("=");
      return colour ? { id: id, colour: colour } : id;
    });
  }

  async function confirmFinal() {
    const players = [...document.querySelectorAll("#final-form fieldset")].map((fs) => {
      const p = session.players.find((q) => String(q.seat) === fs.dataset.seat);
      return { name: p.name, cards: parseCards(fs.querySelector("[name=cards]").value),
        royals: parseCards(fs.querySelector("[name=royals]").value) };
    });
    const err = document.getElementById("final-error");
    try {
      const done = await gt.api("POST", "/api/sessions/" + session.id + "/finish", { score: { game: "splendor-duel", players: players } });
      err.textContent = "";
      gt.renderScore(document.getElementById("final-result"), done.events[done.events.length - 1].payload.result);
    } catch (e) {
      err.textContent = e.message;
    }
  }

  state = replay(session.events);
  renderEditor(state.board);
  render();
  renderFinal();
  if (state.finished) gt.renderScore(document.getElementById("final-result"), state.finished);
  document.getElementById("judge").addEventListener("click", judge);
  document.getElementById("accept-board").addEventListener("click", () => record("note", { board: editedBoard() }));
  document.getElementById("pass-turn").addEventListener("click", () => {
    const next = session.players.find((p) => p.seat !== state.turn);
    if (next) record("note", { turn: next.seat });
  });
  document.getElementById("confirm-final").addEventListener("click", confirmFinal);
  if (new URLSearchParams(window.location.search).has("manual")) document.getElementById("follow-camera").checked = false;
  if (session.status === "active") { poll(); setInterval(poll, 1500); }
})();
