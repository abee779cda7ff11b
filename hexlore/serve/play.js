// hexlore play page: draws the game the server sends over its socket and sends this seat's answers.
// Reads #play-data (hexlore/serve/page.py); no eval, no HTML from data: every text of a pack or a
// scenario goes in through textContent / setAttribute (the page's CSP admits this script alone).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("play-data").textContent);
  var size = data.size, SVGNS = "http://www.w3.org/2000/svg";
  var view = null, socket = null, retry = 500;

  function make(ns, tag, attrs, children) {
    var node = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (a) {
      if (attrs[a] !== null && attrs[a] !== undefined) { node.setAttribute(a, String(attrs[a])); }
    });
    (children || []).forEach(function (c) {
      if (c !== null && c !== undefined) { node.appendChild(typeof c === "object" ? c : document.createTextNode(String(c))); }
    });
    return node;
  }
  function svg(tag, attrs, children) { return make(SVGNS, tag, attrs, children); }
  function html(tag, attrs, children) { return make(null, tag, attrs, children); }
  function fill(parent, children) { parent.replaceChildren.apply(parent, children.filter(function (c) { return c; })); }
  function n(v) { return (Math.round(v * 10) / 10).toFixed(1); }
  function shown(v) { return Array.isArray(v) ? "[" + v.map(shown).join(", ") + "]" : String(v); }

  var board = document.getElementById("board"), unitLayer = document.getElementById("units");
  var polygons = {};
  board.querySelectorAll("polygon[data-hex]").forEach(function (p) { polygons[p.getAttribute("data-hex")] = p; });
  var tokenQuery = "?token=" + encodeURIComponent(data.token);
  document.getElementById("export-log").setAttribute("href", "/games/" + encodeURIComponent(data.game) + "/log" + tokenQuery);
  document.getElementById("export-replay").setAttribute("href", "/games/" + encodeURIComponent(data.game) + "/replay" + tokenQuery);

  function unitSvg(u, x, y, i, count, option) {  // as hexlore/render.py's unit_svg
    var radius = size * (count === 1 ? 0.46 : 0.32);
    var cx = x + (i - (count - 1) / 2) * radius * 1.7, cy = y - size * 0.05;
    var labelSize = Math.min(size * 0.32, size * 1.9 / Math.max(u.id.length, 1) / 0.55 / Math.max(count, 1));
    var parts = [
      svg("circle", {"class": "body", cx: n(cx), cy: n(cy), r: n(radius), fill: u.colour, stroke: "#fff", "stroke-width": "1.5"}),
      svg("text", {x: n(cx), y: n(cy + radius * 0.3), "font-size": n(radius * 0.8), "text-anchor": "middle",
                   "font-weight": "bold", fill: "#fff"}, [u.mark]),
      svg("text", {x: n(cx), y: n(cy + radius + labelSize * 0.95), "font-size": n(labelSize), "text-anchor": "middle",
                   fill: "#111", stroke: "#fff", "stroke-width": "0.25"}, [u.id])];
    if (u.strength.length) {
      var bx = cx + radius * 0.75, by = cy - radius * 0.75;
      parts.push(svg("circle", {cx: n(bx), cy: n(by), r: n(size * 0.2), fill: "#fff", stroke: u.colour}));
      parts.push(svg("text", {x: n(bx), y: n(by + size * 0.09), "font-size": n(size * 0.25), "text-anchor": "middle",
                              fill: "#111"}, [u.strength.map(function (s) { return s[1]; }).join("/")]));
    }
    var changed = Object.keys(u.changed).map(function (f) { return f + "=" + shown(u.changed[f]); }).join(", ");
    parts.push(svg("title", {}, [u.id + " (" + u.type + ", " + u.side + ")" + (changed ? ", changed: " + changed : "")]));
    return svg("g", {"class": "unit" + (option ? " option" : ""), "data-unit": u.id, "data-side": u.side,
                     "data-hex": u.hex, "data-strength": u.strength.map(function (s) { return s[0] + "=" + s[1]; }).join(" ")}, parts);
  }

  function mine() { return view && view.pending && view.you.indexOf(view.pending.side) >= 0; }

  function drawBoard() {
    var p = view.pending, byHex = {}, order = [], out = [];
    view.units.forEach(function (u) {
      if (!u.alive || u.hex === null || !data.centres[u.hex]) { return; }
      if (!byHex[u.hex]) { byHex[u.hex] = []; order.push(u.hex); }
      byHex[u.hex].push(u);
    });
    order.forEach(function (h) {
      var c = data.centres[h];
      byHex[h].forEach(function (u, j) {
        var g = unitSvg(u, c[0], c[1], j, byHex[h].length, mine() && p.units[u.id]);
        if (p && (p.about || []).some(function (a) { return a.id === u.id; })) { g.classList.add("subject"); }
        out.push(g);
      });
    });
    fill(unitLayer, out);
    Object.keys(polygons).forEach(function (h) {
      var poly = polygons[h], now = (view.terrain || {})[h];
      if (!poly.hasAttribute("data-start-fill")) {
        poly.setAttribute("data-start-fill", poly.getAttribute("fill"));
        poly.setAttribute("data-start-terrain", poly.getAttribute("data-terrain"));
      }
      poly.setAttribute("fill", now ? now[1] : poly.getAttribute("data-start-fill"));
      poly.setAttribute("data-terrain", now ? now[0] : poly.getAttribute("data-start-terrain"));
      poly.classList.toggle("option", Boolean(mine() && p.hexes[h]));
    });
  }

  function drawDecision() {
    var box = document.getElementById("decision"), p = view.pending, parts = [];
    if (view.failure) { parts.push(html("p", {"class": "failure"}, ["The rules failed: " + view.failure])); }
    if (view.over) { parts.push(html("p", {"class": "over"}, ["Game over: winner " + (view.winner || "none")])); }
    if (p) {
      var who = p.side + (p.player === "person" ? "" : " (" + p.player + ", thinking)");
      var about = (p.about || []).map(function (u) { return u.id + " (" + u.type + (u.hex ? " at " + u.hex : "") + ")"; });
      parts.push(html("p", {"class": "who"}, [html("b", {}, [who]), " decides ", html("b", {}, [p.name]),
                                              about.length ? html("span", {"class": "about"}, [" for " + about.join(", ")]) : null,
                                              mine() ? " - your decision" : ""]));
      parts.push(html("ol", {"class": "choices", start: "0"}, p.options.map(function (label, i) {
        var marks = [];
        if (p.default === i) { marks.push("default"); }
        if (p.preferred.indexOf(i) >= 0) { marks.push("preferred"); }
        var button = html("button", {type: "button", "data-option": String(i), disabled: mine() ? null : "disabled"},
                          [label + (marks.length ? " (" + marks.join(", ") + ")" : "")]);
        var ask = mine() ? html("button", {type: "button", "class": "ask-odds", "data-odds": String(i),
                                           title: "what this option leads to, exactly"}, ["odds"]) : null;
        return html("li", {}, [button, ask ? " " : null, ask]);
      })));
    }
    if (view.undo_asked && view.undo_asked.length) {
      parts.push(html("p", {"class": "notice"}, ["Undo asked by " + view.undo_asked.join(", ") + ": press Undo to agree"]));
    }
    fill(box, parts);
    document.getElementById("undo").disabled = !view.can_undo || !view.you.length;
    document.getElementById("status").textContent = "move " + view.seq + (view.you.length ? " - you play " +
      view.you.join(", ") : " - watching");
  }

  function drawSides() {
    fill(document.getElementById("sides"), view.sides.map(function (s) {
      var rows = Object.keys(s.fields).sort().map(function (f) { return html("li", {}, [f + ": " + shown(s.fields[f])]); });
      var hands = Object.keys(s.hands).map(function (h) {
        var cards = s.hands[h];
        if (!Array.isArray(cards)) { return html("p", {}, [h + ": " + cards.hidden + " card(s), hidden"]); }
        return html("div", {"class": "hand"}, [html("p", {}, [h + ":"])].concat(cards.map(function (c) {
          return html("div", {"class": "card", "data-card": c.name}, [html("b", {}, [c.title]), html("span", {}, [c.text])]);
        })));
      });
      return html("section", {"class": "side", "data-side": s.name},
                  [html("h2", {}, [s.name + " - " + s.player]), html("ul", {}, rows)].concat(hands));
    }));
  }

  function drawLog() {
    var list = document.getElementById("log");
    list.setAttribute("start", String(view.log_start));  // the page shows the newest lines of the log
    fill(list, view.log.map(function (line) { return html("li", {}, [line]); }));
    list.scrollTop = list.scrollHeight;
  }

  function drawOdds(m) {  // the odds of one option: a table, or why there is none
    var box = document.getElementById("odds");
    if (!view || m.seq !== view.seq) { return; }
    var head = html("p", {"class": "odds-head"}, ["Odds of option " + m.option + (m.label !== undefined ? " (" + m.label + ")" : "") +
      (m.refused ? ": " + m.refused : ", exact, " + m.outcomes + " outcome(s) enumerated")]);
    if (m.refused || !m.rows) { fill(box, [head]); return; }
    var rows = m.rows.concat(m.other ? [m.other] : []);
    var table = html("table", {"class": "odds-table"}, [
      html("thead", {}, [html("tr", {}, ["chance"].concat(m.columns).map(function (c) { return html("th", {}, [c]); }))]),
      html("tbody", {}, rows.map(function (r) {
        return html("tr", {}, [html("td", {title: r.probability}, [r.percent])].concat(r.values.map(function (v) { return html("td", {}, [v]); })));
      }))]);
    fill(box, [head, table]);
  }

  function send(message) {
    if (socket && socket.readyState === 1) { message.v = 1; message.seq = view.seq; socket.send(JSON.stringify(message)); }
  }
  function answer(i) { if (mine()) { send({type: "answer", option: i}); } }

  document.getElementById("decision").addEventListener("click", function (ev) {
    var b = ev.target.closest("button[data-option]"), o = ev.target.closest("button[data-odds]");
    if (b) { answer(parseInt(b.getAttribute("data-option"), 10)); }
    if (o && mine()) { send({type: "odds", option: parseInt(o.getAttribute("data-odds"), 10)}); }
  });
  board.addEventListener("click", function (ev) {
    if (!mine()) { return; }
    var u = ev.target.closest("g[data-unit]"), p = view.pending, hit = null;
    if (u && p.units[u.getAttribute("data-unit")]) { hit = p.units[u.getAttribute("data-unit")]; }
    var h = u ? u.getAttribute("data-hex") : (ev.target.getAttribute && ev.target.getAttribute("data-hex"));
    if (!hit && h && p.hexes[h]) { hit = p.hexes[h]; }
    if (hit && hit.length === 1) { answer(hit[0]); }
  });
  document.getElementById("undo").addEventListener("click", function () { send({type: "undo"}); });

  // designer mode: edits and "save as scenario test" (the server checks every value)
  var designer = document.getElementById("designer"), savedLink = document.getElementById("saved-test");
  function typed(text) {  // a value as typed: a number, true/false/none, a list "a, b", else text
    var t = text.trim();
    if (/^-?[0-9]+$/.test(t)) { return parseInt(t, 10); }
    if (t === "true" || t === "false") { return t === "true"; }
    if (t === "none" || t === "") { return null; }
    if (t.charAt(0) === "[") { return t.replace(/^\[|\]$/g, "").split(",").map(function (x) { return x.trim(); }).filter(Boolean); }
    return t;
  }
  designer.addEventListener("click", function (ev) {
    var b = ev.target.closest("button[data-edit]");
    if (!b) { return; }
    var f = designer.elements, what = b.getAttribute("data-edit");
    if (what === "save") { send({type: "save_test", name: f.name.value}); return; }
    var edit = what === "field" ? {kind: "field", unit: f.unit.value.trim(), field: f.field.value.trim(), value: typed(f.value.value)}
      : what === "move" ? {kind: "move", unit: f.unit.value.trim(), hex: f.hex.value.trim() || null}
      : {kind: "dice", faces: f.faces.value.split(",").map(function (x) { return x.trim(); }).filter(Boolean)};
    send({type: "edit", edit: edit});
  });
  board.addEventListener("click", function (ev) {  // a click on a unit names it in the designer's form
    var u = ev.target.closest("g[data-unit]");
    if (u && !designer.hidden) { designer.elements.unit.value = u.getAttribute("data-unit"); }
  });
  function drawSaved(m) {
    if (m.refused) { document.getElementById("notice").textContent = "Not saved: " + m.refused; return; }
    if (savedLink.href) { URL.revokeObjectURL(savedLink.href); }
    savedLink.href = URL.createObjectURL(new Blob([m.yaml], {type: "application/x-yaml"}));
    savedLink.hidden = false;
    document.getElementById("notice").textContent = "Saved test '" + m.name + "'" +
      (m.notes.length ? " (" + m.notes.join("; ") + ")" : "") + ": download it";
  }

  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.host + "/ws/" + encodeURIComponent(data.game) + tokenQuery);
    socket.addEventListener("open", function () { retry = 500; document.body.classList.add("live"); });
    socket.addEventListener("message", function (ev) {
      var m = JSON.parse(ev.data);
      if (m.type === "error") { document.getElementById("notice").textContent = m.message; return; }
      if (m.type === "odds") { drawOdds(m); return; }
      if (m.type === "position_test") { drawSaved(m); return; }
      if (m.type !== "state") { return; }
      if (!view || view.seq !== m.seq) { fill(document.getElementById("odds"), []); }
      document.getElementById("notice").textContent = "";
      view = m;
      drawBoard(); drawDecision(); drawSides(); drawLog();
      designer.hidden = !view.designer;
      document.body.setAttribute("data-seq", String(view.seq));  // what a test (or a user script) reads
      document.body.setAttribute("data-pending", view.pending ? view.pending.side : (view.over ? "over" : ""));
    });
    socket.addEventListener("close", function () {  // the server restarted or the network dropped: try again
      document.body.classList.remove("live");
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 5000);
    });
  }
  connect();
})();
