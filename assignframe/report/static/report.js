/* assignframe report: draws every placeholder <div data-viz-id> from the embedded JSON.
 * Spec types (built by assignframe.report.visuals): heatmap, bars, lines. No network, no libraries.
 * On success <body data-render="ok" data-viz-count=N>; on any error a #render-error box appears. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var PALETTE = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#bcbd22", "#e377c2",
                 "#7f7f7f", "#ff7f0e", "#393b79", "#637939", "#8c6d31"];
  var DOUBLE = "#d62728", UNOWNED = "#fde0dc";

  function node(tag, attrs, text) {
    var e = document.createElementNS(NS, tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function html(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function clamp(v, lo, hi) { return Math.max(lo, Math.min(hi, v)); }
  function fmt(v) {
    if (v === null || v === undefined) { return "–"; }
    return Math.abs(v) >= 1000 ? Math.round(v).toLocaleString("en") : String(Math.round(v * 100) / 100);
  }

  /* ---- heatmap: members (rows) x partitions (columns) ---------------------------------- */
  function topicOf(label) { return label.slice(0, label.lastIndexOf("-")); }

  function ownersPerPartition(spec, assignment) {
    var owners = spec.partitions.map(function () { return 0; });
    spec.members.forEach(function (m) {
      (assignment[m] || []).forEach(function (i) { owners[i] += 1; });
    });
    return owners;
  }

  function drawHeatmap(spec, view) {
    var cols = spec.partitions.length, rows = spec.members.length;
    var cw = clamp(Math.floor(1100 / Math.max(cols, 1)), 3, 18);
    var ch = clamp(Math.floor(520 / Math.max(rows, 1)), 4, 18);
    var left = ch >= 9 ? 130 : 20, top = cw >= 12 ? 60 : 14, barW = 90;
    var width = Math.max(left + cols * cw + barW + 30, 760), height = top + rows * ch + 24;
    var svg = node("svg", {"class": "heatmap", width: width, height: height,
                           "data-view": view.name, role: "img"});
    svg.appendChild(node("title", {}, spec.title + " — " + view.name));
    var topics = [];
    spec.partitions.forEach(function (p) { var t = topicOf(p); if (topics.indexOf(t) < 0) { topics.push(t); } });
    var owners = ownersPerPartition(spec, view.assignment);
    owners.forEach(function (n, c) {
      if (n === 0) {
        svg.appendChild(node("rect", {"class": "unowned", x: left + c * cw, y: top, width: cw,
                                      height: rows * ch, fill: UNOWNED}));
      }
      if (cw >= 12) {
        var tx = left + c * cw + cw / 2, ty = top - 4;
        svg.appendChild(node("text", {x: tx, y: ty, "font-size": 9, transform: "rotate(-60 " + tx + " " + ty + ")"},
                             spec.partitions[c]));
      }
    });
    var maxCount = 1;
    spec.members.forEach(function (m) { maxCount = Math.max(maxCount, (view.assignment[m] || []).length); });
    spec.members.forEach(function (m, r) {
      var y = top + r * ch, owned = view.assignment[m] || [];
      svg.appendChild(node("rect", {x: left, y: y, width: cols * cw, height: ch, fill: "none",
                                    stroke: "#eceff4", "stroke-width": 0.5}));
      if (left > 20) { svg.appendChild(node("text", {x: left - 4, y: y + ch - 2, "font-size": Math.min(ch - 1, 11),
                                                     "text-anchor": "end"}, m)); }
      owned.forEach(function (i) {
        var color = owners[i] > 1 && !spec.redundant ? DOUBLE : PALETTE[topics.indexOf(topicOf(spec.partitions[i])) % PALETTE.length];
        var cell = node("rect", {"class": "cell", x: left + i * cw, y: y, width: Math.max(cw - 1, 1),
                                 height: Math.max(ch - 1, 1), fill: color});
        cell.appendChild(node("title", {}, m + " owns " + spec.partitions[i]));
        svg.appendChild(cell);
      });
      var bx = left + cols * cw + 10, bw = Math.round((barW - 10) * owned.length / maxCount);
      svg.appendChild(node("rect", {x: bx, y: y + 1, width: bw, height: Math.max(ch - 2, 1), fill: "#90a4c8"}));
      if (ch >= 9) { svg.appendChild(node("text", {x: bx + bw + 3, y: y + ch - 2, "font-size": 10}, String(owned.length))); }
    });
    svg.appendChild(node("text", {x: left, y: height - 6, "font-size": 11, fill: "#5b6475"},
                         rows + " members × " + cols + " partitions; red = owned twice, pink column = unowned; bars = partitions per member"));
    return svg;
  }

  function renderHeatmap(holder, spec) {
    var box = html("div", {"class": "heatmap-box"});
    if (spec.views.length > 1) {
      var controls = html("div", {"class": "heatmap-controls"});
      controls.appendChild(html("label", {}, "Assignment: "));
      var select = html("select", {"class": "heatmap-select"});
      spec.views.forEach(function (v, i) {
        var opt = html("option", {value: String(i)}, v.name + (v.name === spec.recommended ? " (recommended)" : ""));
        select.appendChild(opt);
      });
      select.addEventListener("change", function () {
        box.replaceChild(drawHeatmap(spec, spec.views[+select.value]), box.lastChild);
      });
      controls.appendChild(select);
      holder.appendChild(controls);
    }
    box.appendChild(drawHeatmap(spec, spec.views[0]));
    holder.appendChild(box);
  }

  /* ---- charts ------------------------------------------------------------------------ */
  function axes(svg, spec, x0, y0, w, h, maxY) {
    svg.appendChild(node("line", {x1: x0, y1: y0, x2: x0 + w, y2: y0, stroke: "#888"}));
    svg.appendChild(node("line", {x1: x0, y1: y0, x2: x0, y2: y0 - h, stroke: "#888"}));
    for (var i = 0; i <= 4; i++) {
      var y = y0 - h * i / 4;
      svg.appendChild(node("line", {x1: x0, y1: y, x2: x0 + w, y2: y, stroke: "#eef0f4"}));
      svg.appendChild(node("text", {x: x0 - 4, y: y + 3, "font-size": 10, "text-anchor": "end"}, fmt(maxY * i / 4)));
    }
    svg.appendChild(node("text", {x: x0, y: 14, "font-size": 13, "font-weight": 600}, spec.title));
    if (spec.y_label) {
      svg.appendChild(node("text", {x: x0 + 4, y: y0 - h - 4, "font-size": 10, fill: "#5b6475"}, spec.y_label));
    }
  }

  function legend(svg, names, x, y) {
    names.forEach(function (name, i) {
      svg.appendChild(node("rect", {x: x, y: y + i * 15, width: 10, height: 10, fill: PALETTE[i % PALETTE.length]}));
      svg.appendChild(node("text", {x: x + 14, y: y + 9 + i * 15, "font-size": 11}, name));
    });
  }

  function maxOf(series) {
    var m = 0;
    series.forEach(function (s) { s.values.forEach(function (v) { if (v > m) { m = v; } }); });
    return m > 0 ? m : 1;
  }

  function renderBars(holder, spec) {
    var n = spec.categories.length, k = spec.series.length;
    var x0 = 50, y0 = 190, h = 150, slot = clamp(Math.floor(520 / Math.max(n, 1)), 24, 90);
    var w = slot * n, width = x0 + w + 170, maxY = maxOf(spec.series);
    var svg = node("svg", {"class": "chart bars", width: width, height: 250, "data-chart": spec.title});
    axes(svg, spec, x0, y0, w, h, maxY);
    var bw = Math.max(Math.floor((slot - 8) / k), 2);
    spec.categories.forEach(function (cat, c) {
      spec.series.forEach(function (s, j) {
        var v = s.values[c] || 0, bh = h * v / maxY;
        var bar = node("rect", {"class": "bar", x: x0 + c * slot + 4 + j * bw, y: y0 - bh, width: bw - 1,
                                height: bh, fill: PALETTE[j % PALETTE.length]});
        bar.appendChild(node("title", {}, cat + " · " + s.name + ": " + fmt(v)));
        svg.appendChild(bar);
      });
      var tx = x0 + c * slot + slot / 2, ty = y0 + 12;
      svg.appendChild(node("text", {x: tx, y: ty, "font-size": 10, "text-anchor": "end",
                                    transform: "rotate(-30 " + tx + " " + ty + ")"}, cat));
    });
    legend(svg, spec.series.map(function (s) { return s.name; }), x0 + w + 16, 30);
    holder.appendChild(svg);
  }

  function renderLines(holder, spec) {
    var n = spec.labels.length, x0 = 50, y0 = 190, h = 150;
    var step = clamp(Math.floor(560 / Math.max(n - 1, 1)), 30, 120), w = step * Math.max(n - 1, 1);
    var maxY = maxOf(spec.series), width = x0 + w + 190;
    var svg = node("svg", {"class": "chart lines", width: width, height: 250, "data-chart": spec.title});
    axes(svg, spec, x0, y0, w, h, maxY);
    spec.labels.forEach(function (label, i) {
      var tx = x0 + i * step, ty = y0 + 12;
      svg.appendChild(node("text", {x: tx, y: ty, "font-size": 10, "text-anchor": "end",
                                    transform: "rotate(-30 " + tx + " " + ty + ")"}, label));
    });
    spec.series.forEach(function (s, j) {
      var color = PALETTE[j % PALETTE.length];
      var points = s.values.map(function (v, i) { return (x0 + i * step) + "," + (y0 - h * (v || 0) / maxY); });
      svg.appendChild(node("polyline", {"class": "series", points: points.join(" "), fill: "none",
                                        stroke: color, "stroke-width": 2}));
      s.values.forEach(function (v, i) {
        var dot = node("circle", {cx: x0 + i * step, cy: y0 - h * (v || 0) / maxY, r: 3, fill: color});
        dot.appendChild(node("title", {}, s.name + " · " + spec.labels[i] + ": " + fmt(v)));
        svg.appendChild(dot);
      });
    });
    legend(svg, spec.series.map(function (s) { return s.name; }), x0 + w + 20, 30);
    holder.appendChild(svg);
  }

  /* ---- driver ------------------------------------------------------------------------ */
  var RENDERERS = {heatmap: renderHeatmap, bars: renderBars, lines: renderLines};

  function showError(message) {
    var box = document.getElementById("render-error") || html("div", {id: "render-error"});
    box.textContent = "Report rendering failed: " + message;
    document.body.insertBefore(box, document.body.firstChild);
    document.body.setAttribute("data-render", "error");
  }

  function main() {
    var data = JSON.parse(document.getElementById("report-data").textContent);
    var holders = document.querySelectorAll("[data-viz-id]");
    Array.prototype.forEach.call(holders, function (holder) {
      var spec = data.visuals[holder.getAttribute("data-viz-id")];
      if (!spec || !RENDERERS[spec.type]) { throw new Error("no visual " + holder.getAttribute("data-viz-id")); }
      RENDERERS[spec.type](holder, spec);
    });
    document.body.setAttribute("data-viz-count", String(holders.length));
    document.body.setAttribute("data-render", "ok");
  }

  window.addEventListener("error", function (ev) { showError(ev.message); });
  try { main(); } catch (err) { showError(err && err.stack ? err.stack : String(err)); }
})();
