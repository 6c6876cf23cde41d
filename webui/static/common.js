// Shared helpers of every page: API calls, element building, status banner, photo upload.
"use strict";
const gt = {};

gt.api = async function (method, url, body) {
  const opts = { method: method, headers: {} };
  if (body instanceof FormData || body instanceof Blob) {
    opts.body = body;
    if (body instanceof Blob) opts.headers["Content-Type"] = body.type || "image/jpeg";
  } else if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(url, opts);
  let data = null;
  let unreadable = false;
  try { data = await res.json(); } catch (e) { unreadable = true; }
  if (!res.ok) {
    const err = new Error((data && data.error) || ("request failed: " + res.status));
    err.field = data && data.field;
    err.status = res.status;
    throw err;
  }
  if (unreadable && res.status !== 204) throw new Error("the server's answer could not be read");
  return data;
};

gt.el = function (tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
};

gt.clear = function (node) { while (node.firstChild) node.removeChild(node.firstChild); return node; };

// The live state gives the board as 5 strings and the expedition as an id; `goldtable analyze`
// gives objects ({cells: [...]} and {id: ...}). These accept both.
gt.boardCells = function (reading) {
  const b = reading && reading.board;
  if (!b) return null;
  return Array.isArray(b) ? b : b.cells;
};
gt.expeditionId = function (reading) {
  const e = reading && reading.expedition;
  if (!e) return null;
  return typeof e === "string" ? e : e.id;
};

gt.cellsText = function (cells) { return (cells || []).map((c) => "(" + c[0] + "," + c[1] + ")").join(" "); };

// `doubtful`: the [r, c] spots the reader read with low confidence (the overlay rings them too).
gt.boardNode = function (cells, compare, doubtful) {
  const doubt = new Set((doubtful || []).map((rc) => rc[0] * 5 + rc[1]));
  const board = gt.el("div", { class: "board" });
  for (let r = 0; r < 5; r++) {
    for (let c = 0; c < 5; c++) {
      const ch = (cells && cells[r] && cells[r][c]) || "?";
      const cls = ch === "." ? "tok-empty" : ch === "?" ? "tok-unknown" : "tok-" + ch;
      const changed = compare && compare[r] && compare[r][c] !== ch ? " changed" : "";
      const unsure = doubt.has(r * 5 + c);
      board.append(gt.el("span", {
        class: cls + changed + (unsure ? " doubt" : ""),
        title: "(" + r + "," + c + ")" + (unsure ? " read with low confidence: check it" : ""),
        text: ch,
      }));
    }
  }
  return board;
};

// Render a reading (the JSON of `goldtable analyze` or the live state) into `node`.
gt.renderReading = function (node, reading) {
  gt.clear(node);
  if (!reading) { node.append(gt.el("p", { class: "muted", text: "Nothing read yet." })); return; }
  const cards = reading.cards || [];
  if (reading.cards !== undefined) {
    const list = gt.el("ul", { class: "cards-read" });
    for (const card of cards) {
      const what = (card.id || "unknown card") + (card.colour ? " (" + card.colour + ")" : "");
      const seat = card.seat !== undefined && card.seat !== null ? " · seat " + card.seat : "";
      list.append(gt.el("li", { class: "card-read", "data-card": card.id || "" },
        gt.el("strong", { text: what }), seat + " — " + (card.marked || []).length + " marked cells",
        card.complete ? gt.el("span", { class: "ok", text: " complete" }) : null,
        card.doubtful ? gt.el("span", { class: "doubt-text", text: " · named with low confidence: check the card" }) : null,
        (card.uncertain || []).length ? " · unsure: " + gt.cellsText(card.uncertain) : null));
    }
    node.append(gt.el("p", { class: "cards-count", text: cards.length + " map card(s) recognised" }), list);
    const exp = gt.expeditionId(reading);
    if (exp) node.append(gt.el("p", { class: "expedition-read", text: "Expedition card: " + exp }));
  }
  if (reading.board !== undefined) {
    if (reading.board) {
      const doubtful = Array.isArray(reading.board) ? undefined : reading.board.doubtful;
      node.append(gt.el("p", { class: "board-read", text: "Splendor Duel board:" }),
        gt.boardNode(gt.boardCells(reading), undefined, doubtful));
    } else {
      node.append(gt.el("p", { class: "muted", text: "No Splendor Duel board in view." }));
    }
  }
  if (reading.elapsed_ms !== undefined) node.append(gt.el("p", { class: "muted", text: "read in " + reading.elapsed_ms + " ms" }));
};

// Readable text for a JSON value: {"a_b": 1, "c": [2, 3]} -> "a b 1, c 2/3".
gt.fmt = function (v) {
  if (v === null || v === undefined) return "—";
  if (Array.isArray(v)) return v.length ? v.map(gt.fmt).join(" / ") : "none";
  if (typeof v === "object") return Object.entries(v).map(([k, x]) => k.replace(/_/g, " ") + " " + gt.fmt(x)).join(", ");
  return String(v);
};

// A ranking table from a `goldtable score` answer, with the breakdown and any tie-break notes.
gt.renderScore = function (node, scored) {
  gt.clear(node);
  const table = gt.el("table", { class: "table ranking" },
    gt.el("thead", {}, gt.el("tr", {}, gt.el("th", { text: "Rank" }), gt.el("th", { text: "Player" }),
      gt.el("th", { text: "Total" }), gt.el("th", { text: "Breakdown" }))));
  const body = gt.el("tbody");
  const winners = new Set(scored.winners || []);
  const ranked = (scored.players || []).slice().sort((a, b) => (a.rank || 99) - (b.rank || 99));
  for (const p of ranked) {
    const parts = Object.entries(p.breakdown || {}).map(([k, v]) => k.replace(/_/g, " ") + ": " + gt.fmt(v));
    body.append(gt.el("tr", { class: winners.has(p.name) ? "winner" : null },
      gt.el("td", { text: p.rank }), gt.el("td", { text: p.name }), gt.el("td", { class: "total-cell", text: p.total }),
      gt.el("td", { text: parts.join(" · ") })));
  }
  table.append(body);
  node.append(table);
  if (scored.winners && scored.winners.length) {
    node.append(gt.el("p", { class: "winners", text: "Winner: " + scored.winners.join(" & ") }));
  }
  for (const note of scored.tiebreak || []) {
    node.append(gt.el("p", { class: "tiebreak" }, gt.el("strong", { text: "Tie-break: " }), note.text || JSON.stringify(note)));
  }
  const skip = new Set(["game", "players", "winners", "tiebreak"]);
  for (const [k, v] of Object.entries(scored)) {
    if (skip.has(k)) continue;
    node.append(gt.el("p", { class: "note" }, gt.el("strong", { text: k.replace(/_/g, " ") + ": " }), gt.fmt(v)));
  }
  for (const p of scored.players || []) {
    for (const [k, v] of Object.entries(p)) {
      if (["name", "total", "rank", "breakdown"].includes(k)) continue;
      node.append(gt.el("p", { class: "note" }, p.name + " — " + k.replace(/_/g, " ") + ": " + gt.fmt(v)));
    }
  }
};

gt.updateStatus = function (status) {
  if (!status) return;
  const banner = document.getElementById("banner");
  if (banner) {
    banner.textContent = status.banner || "";
    banner.classList.toggle("hidden", !status.banner);
  }
  const box = document.getElementById("camera-status");
  const text = document.getElementById("camera-status-text");
  if (box && text) { box.dataset.state = status.state; text.textContent = status.text; }
};

gt.pollStatus = function () {
  gt.api("GET", "/api/health").then((h) => gt.updateStatus(h.source)).catch(() => {
    const text = document.getElementById("camera-status-text");
    if (text) text.textContent = "server unreachable";
  });
};

gt.readJSON = function (id) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : null;
};

document.addEventListener("DOMContentLoaded", () => {
  setInterval(gt.pollStatus, 3000);
  const form = document.getElementById("upload-form");
  if (form) {
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const out = document.getElementById("upload-result");
      gt.clear(out).append(gt.el("p", { class: "muted", text: "Reading the photo…" }));
      try {
        const reading = await gt.api("POST", "/api/analyze", new FormData(form));
        gt.renderReading(out, reading);
        out.dataset.done = "1";
        document.dispatchEvent(new CustomEvent("gt:photo", { detail: reading }));
      } catch (e) {
        gt.clear(out).append(gt.el("p", { class: "bad upload-error", text: e.message }));
      }
    });
  }
});
