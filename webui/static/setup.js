// New-game form: players, seats and the start player; creates the session and opens its page.
"use strict";
(function () {
  const form = document.getElementById("setup-form");
  if (!form) return;
  const rows = document.getElementById("setup-rows");
  const max = Number(form.dataset.max);
  const min = Number(form.dataset.min);

  function addRow() {
    const n = rows.children.length + 1;
    if (n > max) return;
    rows.append(gt.el("tr", {},
      gt.el("td", {}, gt.el("input", { name: "name", required: true, maxlength: "40", placeholder: "Player " + n, "aria-label": "name of player " + n })),
      gt.el("td", {}, gt.el("input", { name: "seat", type: "number", min: "1", max: "6", value: String(n), class: "num", "aria-label": "seat of player " + n })),
      gt.el("td", {}, gt.el("input", { name: "start", type: "radio", value: String(n - 1), checked: n === 1, "aria-label": "player " + n + " starts" }))));
  }
  for (let i = 0; i < Math.max(2, min); i++) addRow();
  const add = document.getElementById("add-player");
  if (add) add.addEventListener("click", addRow);

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const players = [...rows.children].map((tr, i) => ({
      name: tr.querySelector("[name=name]").value,
      seat: Number(tr.querySelector("[name=seat]").value),
      start_player: tr.querySelector("[name=start]").checked,
    })).filter((p) => p.name.trim() !== "");
    try {
      const s = await gt.api("POST", "/api/sessions", { game: form.dataset.game, players: players });
      window.location = "/" + form.dataset.game + "/" + s.id;
    } catch (e) {
      document.getElementById("setup-error").textContent = e.message;
    }
  });
})();
