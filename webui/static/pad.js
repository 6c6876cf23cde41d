// Score pads for the games without a camera reader: the form builds a `goldtable score` document;
// the server's rules check every field and do the arithmetic and the tie-breaks.
"use strict";
(function () {
  const pad = document.getElementById("pad");
  if (!pad) return;
  const game = pad.dataset.game;
  const fieldsBox = document.getElementById("pad-fields");
  const SITES = ["hills", "forest", "mountains", "river", "lake"];
  const list = (text) => text.split(/[ ,;]+/).filter((x) => x !== "").map((x) => (/^-?\d+$/.test(x) ? Number(x) : x));
  const names = (text) => text.split(/[,;]+/).map((x) => x.trim()).filter((x) => x !== "");
  const num = (text) => (/^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text.trim());
  const input = (name, label, attrs) => gt.el("label", {}, label + " ", gt.el("input", Object.assign({ name: name }, attrs || {})));

  function playerFields(n) {
    const fs = gt.el("fieldset", { class: "pad-player" }, gt.el("legend", { text: "Player " + n }),
      input("name", "name", { required: true, maxlength: "40", value: "Player " + n }));
    if (game === "fools-gold") {
      for (const site of SITES) fs.append(input(site, site + " (nuggets per card)", { placeholder: "3, 2", size: "8" }));
      fs.append(input("gems", "gem types", { placeholder: "ruby, topaz" }));
    } else if (game === "valdora") {
      fs.append(input("contracts", "contracts (points each)", { placeholder: "5, 8" }),
        input("craftsman_colours", "craftsman colours", { placeholder: "red, blue" }),
        input("workshops", "workshops (points each)", { placeholder: "12" }),
        input("processing_cards", "processing cards", { value: "0", class: "num" }),
        input("stones", "raw stones", { value: "0", class: "num" }),
        input("silver", "silver coins", { value: "0", class: "num" }));
    }
    return fs;
  }

  function roundFields(r, count) {
    const fs = gt.el("fieldset", { class: "pad-round" }, gt.el("legend", { text: "Round " + r }));
    for (let i = 1; i <= count; i++) {
      fs.append(gt.el("div", { class: "pad-round-player", "data-player": String(i) }, "Player " + i + ": ",
        gt.el("select", { name: "status", "aria-label": "round " + r + " player " + i + " status" },
          gt.el("option", { value: "exited" }, "reached the exit"), gt.el("option", { value: "caught" }, "caught by the dragon")),
        input("exit_position", "exit position", { class: "num", value: String(i) }),
        input("nuggets", "nuggets", { class: "num", value: "0" }),
        input("extra_gold", "extra-gold cards", { class: "num", value: "0" })));
    }
    return fs;
  }

  function players() { return fieldsBox.querySelectorAll(".pad-player"); }

  function addPlayer() {
    const n = players().length + 1;
    const fs = playerFields(n);
    const rounds = fieldsBox.querySelector(".pad-round");
    if (rounds) fieldsBox.insertBefore(fs, rounds); else fieldsBox.append(fs);
    if (game === "my-gold-mine") {
      for (const [i, round] of [...fieldsBox.querySelectorAll(".pad-round")].entries()) {
        round.replaceWith(roundFields(i + 1, n));
      }
    }
  }

  function documentFromForm() {
    const ps = [...players()].map((fs) => {
      const v = (name) => fs.querySelector("[name=" + name + "]").value;
      const p = { name: v("name") };
      if (game === "fools-gold") {
        p.gold = {};
        for (const site of SITES) p.gold[site] = list(v(site));
        p.gems = names(v("gems"));
      } else if (game === "valdora") {
        p.contracts = list(v("contracts"));
        p.craftsman_colours = names(v("craftsman_colours"));
        p.workshops = list(v("workshops"));
        p.processing_cards = num(v("processing_cards"));
        p.stones = num(v("stones"));
        p.silver = num(v("silver"));
      }
      return p;
    });
    if (game !== "my-gold-mine") return { game: game, players: ps };
    const rounds = [...fieldsBox.querySelectorAll(".pad-round")].map((fs) => ({
      players: [...fs.querySelectorAll(".pad-round-player")].map((row, i) => ({
        name: ps[i].name,
        status: row.querySelector("[name=status]").value,
        exit_position: num(row.querySelector("[name=exit_position]").value),
        nuggets: num(row.querySelector("[name=nuggets]").value),
        extra_gold: num(row.querySelector("[name=extra_gold]").value),
      })),
    }));
    return { game: game, rounds: rounds, names: ps.map((p) => p.name) };
  }

  addPlayer();
  addPlayer();
  if (game === "my-gold-mine") fieldsBox.append(roundFields(1, 2));
  document.getElementById("pad-add").addEventListener("click", addPlayer);
  const addRound = document.getElementById("pad-add-round");
  if (addRound) addRound.addEventListener("click", () => {
    const n = fieldsBox.querySelectorAll(".pad-round").length;
    if (n < 3) fieldsBox.append(roundFields(n + 1, players().length));
  });

  document.getElementById("pad-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const err = document.getElementById("pad-error");
    const out = document.getElementById("pad-result");
    const doc = documentFromForm();
    const names = doc.names || doc.players.map((p) => p.name);
    delete doc.names;
    try {
      const scored = await gt.api("POST", "/api/score", doc);
      if (document.getElementById("pad-save").checked) {
        const s = await gt.api("POST", "/api/sessions", { game: game, players: names.map((n) => ({ name: n })), score: doc });
        out.dataset.session = String(s.id);
      }
      err.textContent = "";
      gt.renderScore(out, scored);
    } catch (e) {
      err.textContent = e.message;
      gt.clear(out);
    }
  });
})();
