// hexlore replay viewer: steps through a game's log entries and draws the board after each.
// Reads the JSON in #replay-data (hexlore/replay/page.py); no network, no eval. Every text of
// the game (names, events, marks) goes in through DOM calls (textContent, setAttribute), never
// as HTML: the page's Content-Security-Policy admits this script alone, by its hash.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var entries = data.entries, units = data.units, size = data.size, strength = data.strength;
  var last = entries.length;  // steps 0..last: 0 before the first entry, k after entry k
  var SVGNS = "http://www.w3.org/2000/svg";

  // Whole positions, rebuilt once from the frames (which hold only what changed).
  // states[k][i] = [hex label or null, alive, numbers]; unchanged units share their array.
  var states = [], now = [];
  for (var k = 0; k < data.frames.length; k++) {
    var next = now.slice();
    data.frames[k].forEach(function (c) {
      var old = next[c[0]] || [null, false, {}];
      next[c[0]] = [c[1], c[2], Object.assign({}, old[2], c[3])];
    });
    states.push(next);
    now = next;
  }
  while (states.length < last + 1) { states.push(now); }  // a game stopped early

  // moves[k]: [[unit index, hexes entered], ...] for the moves whose way the rules gave
  var moves = data.frames.map(function (frame) {
    return frame.filter(function (c) { return c.length > 4; }).map(function (c) { return [c[0], c[4]]; });
  });
  // Terrain changed in play: the hexes concerned, and what each had before the first entry.
  var terrainSteps = Object.keys(data.terrain).map(Number).sort(function (a, b) { return a - b; });

  // make(ns, tag, attrs, children): an element with its attributes set and its children
  // appended (strings as text nodes); null children and attributes are left out.
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
  function fill(parent, children) {  // parent's children replaced by these
    var part = document.createDocumentFragment();
    children.forEach(function (c) { part.appendChild(typeof c === "object" ? c : document.createTextNode(String(c))); });
    parent.replaceChildren(part);
  }
  function n(v) { return (Math.round(v * 10) / 10).toFixed(1); }
  function shown(v) { return Array.isArray(v) ? "[" + v.map(shown).join(", ") + "]" : String(v); }

  function words(entry) {  // every label an entry names: the units and hexes to mark
    var out = new Set();
    function add(v) { if (Array.isArray(v)) { v.forEach(add); } else if (typeof v === "string") { out.add(v); } }
    if (entry) { add(Object.values(entry.args || {})); add(entry.choice); add(entry.by); }
    return out;
  }

  function summary(e) {
    if (e.type === "event") {
      return e.event + "(" + Object.keys(e.args).map(function (a) { return a + ": " + shown(e.args[a]); }).join(", ") + ")";
    }
    if (e.type === "roll") { return "roll " + e.die + ": " + e.faces.join(" "); }
    if (e.type === "decision") { return e.by + " " + e.decision + " -> " + shown(e.choice) + " (of " + e.options + ")"; }
    if (e.type === "round") { return "round " + e.round; }
    if (e.type === "end") { return "end: " + (e.winner || "draw") + (e.reason ? " (" + e.reason + ")" : ""); }
    return JSON.stringify(e);
  }

  function unitSvg(u, st, x, y, i, count, acting) {  // as hexlore/render.py's unit_svg
    var radius = size * (count === 1 ? 0.46 : 0.32);
    var cx = x + (i - (count - 1) / 2) * radius * 1.7, cy = y - size * 0.05;
    var nums = strength.filter(function (f) { return typeof st[2][f] === "number"; });
    var text = nums.map(function (f) { return f + "=" + st[2][f]; }).join(" ");
    var labelSize = Math.min(size * 0.32, size * 1.9 / Math.max(u.id.length, 1) / 0.55 / Math.max(count, 1));
    var all = Object.keys(st[2]).sort().map(function (f) { return f + "=" + st[2][f]; }).join(", ");
    var parts = [
      svg("circle", {"class": "body", cx: n(cx), cy: n(cy), r: n(radius), fill: u.colour, stroke: "#fff",
                     "stroke-width": "1.5"}),
      svg("text", {x: n(cx), y: n(cy + radius * 0.3), "font-size": n(radius * 0.8), "text-anchor": "middle",
                   "font-weight": "bold", fill: "#fff"}, [u.mark]),
      svg("text", {x: n(cx), y: n(cy + radius + labelSize * 0.95), "font-size": n(labelSize), "text-anchor": "middle",
                   fill: "#111", stroke: "#fff", "stroke-width": "0.25"}, [u.id])];
    if (nums.length) {
      var bx = cx + radius * 0.75, by = cy - radius * 0.75;
      parts.push(svg("circle", {cx: n(bx), cy: n(by), r: n(size * 0.2), fill: "#fff", stroke: u.colour}));
      parts.push(svg("text", {x: n(bx), y: n(by + size * 0.09), "font-size": n(size * 0.25), "text-anchor": "middle",
                              fill: "#111"}, [nums.map(function (f) { return st[2][f]; }).join("/")]));
    }
    parts.push(svg("title", {}, [u.id + " (" + u.type + ", " + u.side + ")" + (all ? ": " + all : "")]));
    return svg("g", {"class": "unit" + (acting ? " acting" : ""), "data-unit": u.id, "data-type": u.type,
                     "data-side": u.side, "data-hex": String(st[0]), "data-strength": text}, parts);
  }

  var board = document.getElementById("board");
  var unitLayer = document.getElementById("units");
  var pathLayer = document.getElementById("paths");
  var polygons = {};
  board.querySelectorAll("polygon[data-hex]").forEach(function (p) { polygons[p.getAttribute("data-hex")] = p; });
  var startTerrain = {};
  terrainSteps.forEach(function (k) {
    data.terrain[k].forEach(function (c) {
      if (!(c[0] in startTerrain)) { startTerrain[c[0]] = polygons[c[0]].getAttribute("data-terrain"); }
    });
  });

  function drawTerrain(step) {  // every hex that changes in play, as it is after entry `step`
    var now = Object.assign({}, startTerrain);
    for (var j = 0; j < terrainSteps.length && terrainSteps[j] <= step; j++) {
      data.terrain[terrainSteps[j]].forEach(function (c) { now[c[0]] = c[1]; });
    }
    Object.keys(now).forEach(function (h) {
      var p = polygons[h];
      if (p.getAttribute("data-terrain") !== now[h]) {
        p.setAttribute("data-terrain", now[h]);
        p.setAttribute("fill", data.fills[now[h]] || "#ccc");
      }
    });
  }

  function pathsAt(step, marked) {  // moves shown at a step: its own, and those its entry names
    var out = (moves[step] || []).slice();
    if (step > 0) {
      (moves[step - 1] || []).forEach(function (m) { if (marked.has(units[m[0]].id)) { out.push(m); } });
    }
    return out;
  }

  function drawPaths(step, marked) {
    var shown = new Set(), lines = [];
    pathsAt(step, marked).forEach(function (m) {
      var before = step > 0 ? states[step - 1][m[0]] : null;
      var hexes = (before && before[0] !== null ? [before[0]] : []).concat(m[1]);
      m[1].forEach(function (h) { shown.add(h); });
      var points = hexes.filter(function (h) { return data.centres[h]; }).map(function (h) {
        return n(data.centres[h][0]) + "," + n(data.centres[h][1]);
      });
      lines.push(svg("polyline", {"class": "way", "data-unit": units[m[0]].id, "data-way": m[1].join(" "),
        points: points.join(" "), fill: "none", stroke: "#e0007a", "stroke-width": "3", "stroke-dasharray": "6 4",
        "stroke-linecap": "round", "stroke-linejoin": "round", opacity: "0.8"}));
    });
    fill(pathLayer, lines);
    Object.keys(polygons).forEach(function (h) {
      var p = polygons[h];
      if (shown.has(h)) { p.classList.add("path"); } else if (p.classList.contains("path")) { p.classList.remove("path"); }
    });
  }
  var list = document.getElementById("entries");
  var detail = document.getElementById("detail");
  var slider = document.getElementById("slider");
  var where = document.getElementById("where");
  slider.max = String(last);

  var rows = [html("li", {"data-step": "0", "class": "start"}, ["set-out (before the first entry)"])];
  entries.forEach(function (e, i) {
    rows.push(html("li", {"data-step": String(i + 1), "class": String(e.type)}, [summary(e)]));
  });
  fill(list, rows);
  var items = list.children;

  function drawUnits(step, marked) {
    var st = states[step], byHex = {}, order = [];
    units.forEach(function (u, i) {
      var s = st[i];
      if (!s || !s[1] || s[0] === null || !data.centres[s[0]]) { return; }
      if (!byHex[s[0]]) { byHex[s[0]] = []; order.push(s[0]); }
      byHex[s[0]].push(i);
    });
    var out = [];
    order.forEach(function (h) {
      var c = data.centres[h], here = byHex[h];
      here.forEach(function (i, j) { out.push(unitSvg(units[i], st[i], c[0], c[1], j, here.length, marked.has(units[i].id))); });
    });
    fill(unitLayer, out);
  }

  // a rule file's path as a link to the file: "./" before a path that could read as a scheme
  // ("javascript:..."), so it stays a path beside the page
  function fileLink(path) { path = String(path); return /^[\/.]/.test(path) ? path : "./" + path; }

  function kind(text) { return html("span", {"class": "kind"}, [text]); }

  function die(f) {  // a face, coloured as the look says (a CSSOM style: the policy forbids style="")
    var face = html("span", {"class": "die", "data-face": f, title: f}, [f]);
    face.style.background = data.faces[f] || "#888";
    return face;
  }

  function describe(step) {  // the nodes of the detail pane at a step
    if (step === 0) { return [kind("set-out"), ": the board before the first entry"]; }
    var e = entries[step - 1];
    var at = data.where[step - 1];
    var head = [html("div", {}, ["#" + e.seq + " \u00b7 round " + e.round + " \u00b7 turn " + e.turn])];
    if (at) {
      head.push(html("div", {"class": "rule", "data-rule": at[0], "data-file": at[1], "data-line": String(at[2])}, [
        "from ", html("a", {href: fileLink(at[1])}, [at[0]]), " (" + String(at[1]).split("/").slice(-2).join("/") + ":" + at[2] + ")"]));
    }
    if (e.type === "roll") {
      return head.concat([kind("roll"), " " + e.die, html("div", {}, e.faces.map(die))]);
    }
    if (e.type === "decision") {
      var offered = data.offered[String(step - 1)] || [], taken = shown(e.choice), chips = [];
      offered.forEach(function (o, i) {
        var text = shown(o);
        if (i > 0) { chips.push(" "); }
        chips.push(html("span", {"class": "option" + (text === taken ? " taken" : "")}, [text]));
      });
      return head.concat([kind("decision"), " " + e.decision + " by " + e.by,
        html("div", {}, ["took ", html("b", {"class": "choice"}, [taken]), " of ",
                         html("b", {"class": "offered"}, [String(e.options)]),
                         " option" + (e.options === 1 ? "" : "s") + " offered"]),
        offered.length ? html("div", {"class": "options"}, chips) : null]);
    }
    if (e.type === "event") {
      return head.concat([kind(e.event), html("ul", {}, Object.keys(e.args).map(function (a) {
        return html("li", {}, [a + ": " + shown(e.args[a])]);
      }))]);
    }
    return head.concat([kind(summary(e))]);
  }

  var current = -1;
  function show(step) {
    step = Math.max(0, Math.min(last, step));
    if (step === current) { return; }
    if (current >= 0) { items[current].classList.remove("current"); }
    current = step;
    var item = items[step];
    item.classList.add("current");
    var box = list.getBoundingClientRect(), r = item.getBoundingClientRect();
    if (r.top < box.top || r.bottom > box.bottom) { list.scrollTop = item.offsetTop - list.clientHeight / 2; }
    var marked = words(entries[step - 1]);
    var offered = new Set(step > 0 ? (data.offered[String(step - 1)] || []).filter(function (o) {
      return typeof o === "string"; }) : []);
    Object.keys(polygons).forEach(function (h) {
      var p = polygons[h];
      if (marked.has(h)) { p.classList.add("marked"); } else if (p.classList.contains("marked")) { p.classList.remove("marked"); }
      if (offered.has(h)) { p.classList.add("option"); } else if (p.classList.contains("option")) { p.classList.remove("option"); }
    });
    drawTerrain(step);
    drawPaths(step, marked);
    drawUnits(step, marked);
    fill(detail, describe(step).filter(function (c) { return c !== null; }));
    slider.value = String(step);
    where.textContent = "step " + step + " / " + last;
    document.body.setAttribute("data-step", String(step));
  }

  slider.addEventListener("input", function () { show(parseInt(slider.value, 10)); });
  document.getElementById("prev").addEventListener("click", function () { show(current - 1); });
  document.getElementById("next").addEventListener("click", function () { show(current + 1); });
  list.addEventListener("click", function (ev) {
    var li = ev.target.closest("li[data-step]");
    if (li) { show(parseInt(li.getAttribute("data-step"), 10)); }
  });
  document.addEventListener("keydown", function (ev) {
    var moves = {ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10};
    if (ev.key in moves) { show(current + moves[ev.key]); ev.preventDefault(); }
    else if (ev.key === "Home") { show(0); ev.preventDefault(); }
    else if (ev.key === "End") { show(last); ev.preventDefault(); }
  });
  show(0);
}());
