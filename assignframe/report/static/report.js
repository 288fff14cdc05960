/* assignframe report: draws every placeholder <div data-viz-id> from the embedded JSON.
 * Spec types (built by assignframe.report.visuals): heatmap, bars, lines. No network, no libraries.
 * Pictures take the width of the page; count axes tick whole numbers; every colour has a legend
 * entry; a chart whose values are all 0 is a sentence instead; many lines become small multiples;
 * each SVG's view box is grown to hold every label it draws (nothing clipped).
 * On success <body data-render="ok" data-viz-count=N>; on any error a #render-error box appears. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var PALETTE = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#bcbd22", "#e377c2",
                 "#7f7f7f", "#ff7f0e", "#393b79", "#637939", "#8c6d31"];
  var DOUBLE = "#d62728", UNOWNED = "#fde0dc", COUNT_BAR = "#90a4c8", CONTEXT = "#d5d9e0";
  var LABEL_CHARS = 28;        /* member labels longer than this lose their middle */
  var SMALL_MULTIPLES = 4;     /* more line series than this: one panel per series */

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
  function color(i) { return PALETTE[i % PALETTE.length]; }
  /* The start of an id is what a person recognises (the client id): cut the middle. */
  function shortLabel(text) {
    if (text.length <= LABEL_CHARS) { return text; }
    return text.slice(0, LABEL_CHARS - 9) + "…" + text.slice(-8);
  }
  /* A holder inside a closed <details> has no layout yet: take the page's content width. */
  function availableWidth(holder) {
    var main = document.querySelector("main");
    var page = main ? main.clientWidth - 90 : 900;
    return Math.max((holder.clientWidth || page) - 4, 480);
  }

  /* Grow the view box to every drawn element (rotated labels included), keep the page width. */
  function fit(svg, width) {
    var box = svg.getBBox(), w = +svg.getAttribute("width"), h = +svg.getAttribute("height");
    if (!box.width) {  /* not laid out (closed <details>): fitted when opened */
      svg.setAttribute("data-fit-width", width);
      return;
    }
    svg.removeAttribute("data-fit-width");
    var x0 = Math.min(0, Math.floor(box.x) - 2), y0 = Math.min(0, Math.floor(box.y) - 2);
    var x1 = Math.max(w, Math.ceil(box.x + box.width) + 2);
    var y1 = Math.max(h, Math.ceil(box.y + box.height) + 2);
    var shown = Math.max(width, x1 - x0 > width ? width : x1 - x0);
    svg.setAttribute("viewBox", [x0, y0, x1 - x0, y1 - y0].join(" "));
    svg.setAttribute("width", shown);
    svg.setAttribute("height", Math.round((y1 - y0) * shown / (x1 - x0)));
  }

  function htmlLegend(entries) {
    var box = html("div", {"class": "legend"});
    entries.forEach(function (entry) {
      var item = html("span", {"class": "legend-entry", "data-color": entry.color});
      item.appendChild(html("i", {style: "background:" + entry.color}));
      item.appendChild(document.createTextNode(entry.name));
      box.appendChild(item);
    });
    return box;
  }

  /* ---- heatmap: members (rows) x partitions (columns) ---------------------------------- */
  function topicOf(label) { return label.slice(0, label.lastIndexOf("-")); }

  function topicsOf(spec) {
    var topics = [];
    spec.partitions.forEach(function (p) { var t = topicOf(p); if (topics.indexOf(t) < 0) { topics.push(t); } });
    return topics;
  }

  function ownersPerPartition(spec, assignment) {
    var owners = spec.partitions.map(function () { return 0; });
    spec.members.forEach(function (m) {
      (assignment[m] || []).forEach(function (i) { owners[i] += 1; });
    });
    return owners;
  }

  function heatmapLegend(spec) {
    var entries = topicsOf(spec).map(function (t, i) { return {name: "topic " + t, color: color(i)}; });
    if (!spec.redundant) { entries.push({name: "owned by two members", color: DOUBLE}); }
    entries.push({name: "unowned partition", color: UNOWNED});
    entries.push({name: "partitions per member (bar)", color: COUNT_BAR});
    return htmlLegend(entries);
  }

  function drawHeatmap(spec, view, width) {
    var cols = spec.partitions.length, rows = spec.members.length;
    var labels = spec.members.map(shortLabel);
    var longest = labels.reduce(function (n, l) { return Math.max(n, l.length); }, 0);
    var ch = clamp(Math.floor(520 / Math.max(rows, 1)), 4, 18);
    var left = ch >= 9 ? Math.round(longest * 6.4) + 10 : 20, barW = 90;
    var cw = clamp(Math.floor((width - left - barW - 30) / Math.max(cols, 1)), 3, 18);
    var top = cw >= 12 ? 60 : 14;
    var height = top + rows * ch + 24;
    var svg = node("svg", {"class": "heatmap", width: width, height: height,
                           "data-view": view.name, role: "img"});
    svg.appendChild(node("title", {}, spec.title + " — " + view.name));
    var topics = topicsOf(spec), owners = ownersPerPartition(spec, view.assignment);
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
      if (left > 20) {
        var label = node("text", {"class": "member-label", x: left - 4, y: y + ch - 2, "data-member": m,
                                  "font-size": Math.min(ch - 1, 11), "text-anchor": "end"}, labels[r]);
        label.appendChild(node("title", {}, m));
        svg.appendChild(label);
      }
      owned.forEach(function (i) {
        var fill = owners[i] > 1 && !spec.redundant ? DOUBLE : color(topics.indexOf(topicOf(spec.partitions[i])));
        var cell = node("rect", {"class": "cell", x: left + i * cw, y: y, width: Math.max(cw - 1, 1),
                                 height: Math.max(ch - 1, 1), fill: fill});
        cell.appendChild(node("title", {}, m + " owns " + spec.partitions[i]));
        svg.appendChild(cell);
      });
      var bx = left + cols * cw + 10, bw = Math.round((barW - 10) * owned.length / maxCount);
      svg.appendChild(node("rect", {"class": "count-bar", x: bx, y: y + 1, width: bw,
                                    height: Math.max(ch - 2, 1), fill: COUNT_BAR}));
      if (ch >= 9) { svg.appendChild(node("text", {x: bx + bw + 3, y: y + ch - 2, "font-size": 10}, String(owned.length))); }
    });
    svg.appendChild(node("text", {x: left, y: height - 6, "font-size": 11, fill: "#5b6475"},
                         rows + " members × " + cols + " partitions"));
    return svg;
  }

  function renderHeatmap(holder, spec) {
    var box = html("div", {"class": "heatmap-box"}), width = availableWidth(holder);
    if (spec.views.length > 1) {
      var controls = html("div", {"class": "heatmap-controls"});
      controls.appendChild(html("label", {}, "Assignment: "));
      var select = html("select", {"class": "heatmap-select"});
      spec.views.forEach(function (v, i) {
        var opt = html("option", {value: String(i)}, v.name + (v.name === spec.recommended ? " (recommended)" : ""));
        select.appendChild(opt);
      });
      select.addEventListener("change", function () {
        var svg = drawHeatmap(spec, spec.views[+select.value], width);
        box.replaceChild(svg, box.lastChild);
        fit(svg, width);
      });
      controls.appendChild(select);
      holder.appendChild(controls);
    }
    holder.appendChild(heatmapLegend(spec));
    var first = drawHeatmap(spec, spec.views[0], width);
    box.appendChild(first);
    holder.appendChild(box);
    fit(first, width);
  }

  /* ---- charts ------------------------------------------------------------------------ */
  function maxOf(series) {
    var m = 0;
    series.forEach(function (s) { s.values.forEach(function (v) { if (v > m) { m = v; } }); });
    return m;
  }

  /* Round tick steps (1, 2, 5 x 10^k); whole numbers only on count axes. */
  function ticks(max, counts) {
    var raw = max / 4, magnitude = Math.pow(10, Math.floor(Math.log10(raw))), step = magnitude;
    [1, 2, 5, 10].some(function (m) { step = m * magnitude; return step >= raw; });
    if (counts) { step = Math.max(1, Math.round(step)); }
    var values = [], top = Math.ceil(max / step - 1e-9) * step;
    for (var v = 0; v <= top + step / 2; v += step) { values.push(+v.toFixed(6)); }
    return values;
  }

  function axes(svg, spec, x0, y0, w, h, tickValues) {
    var top = tickValues[tickValues.length - 1];
    svg.appendChild(node("line", {x1: x0, y1: y0, x2: x0 + w, y2: y0, stroke: "#888"}));
    svg.appendChild(node("line", {x1: x0, y1: y0, x2: x0, y2: y0 - h, stroke: "#888"}));
    tickValues.forEach(function (value) {
      var y = y0 - h * value / top;
      svg.appendChild(node("line", {x1: x0, y1: y, x2: x0 + w, y2: y, stroke: "#eef0f4"}));
      svg.appendChild(node("text", {"class": "tick", x: x0 - 4, y: y + 3, "font-size": 10,
                                    "text-anchor": "end"}, fmt(value)));
    });
    if (spec.y_label) {
      svg.appendChild(node("text", {x: x0 + 4, y: y0 - h - 4, "font-size": 10, fill: "#5b6475"}, spec.y_label));
    }
    return top;
  }

  function xLabels(svg, labels, xOf, y0) {
    labels.forEach(function (label, i) {
      var tx = xOf(i), ty = y0 + 12;
      var text = node("text", {"class": "x-label", x: tx, y: ty, "font-size": 10, "text-anchor": "end",
                               transform: "rotate(-30 " + tx + " " + ty + ")"}, shortLabel(label));
      text.appendChild(node("title", {}, label));
      svg.appendChild(text);
    });
  }

  function chartFrame(holder, spec) {
    var frame = html("div", {"class": "chart-frame", "data-chart": spec.title});
    frame.appendChild(html("h4", {"class": "chart-title"}, spec.title));
    holder.appendChild(frame);
    return frame;
  }

  function seriesLegend(spec) {
    return htmlLegend(spec.series.map(function (s, i) { return {name: s.name, color: color(i)}; }));
  }

  function allZero(holder, spec) {
    if (maxOf(spec.series) > 0) { return false; }
    holder.appendChild(html("p", {"class": "all-zero", "data-chart": spec.title}, spec.when_all_zero));
    return true;
  }

  function renderBars(holder, spec) {
    if (allZero(holder, spec)) { return; }
    var frame = chartFrame(holder, spec), width = availableWidth(holder);
    var n = spec.labels.length, k = spec.series.length;
    var x0 = 56, y0 = 170, h = 150, w = width - x0 - 20;
    var slot = Math.max(w / Math.max(n, 1), 8 * k + 8), bw = clamp(Math.floor((slot - 8) / k), 2, 60);
    var svg = node("svg", {"class": "chart bars", width: width, height: 240, "data-chart": spec.title,
                           "data-counts": spec.counts ? "true" : "false"});
    var top = axes(svg, spec, x0, y0, Math.max(w, slot * n), h, ticks(maxOf(spec.series), spec.counts));
    spec.labels.forEach(function (cat, c) {
      var start = x0 + c * slot + (slot - bw * k) / 2;
      spec.series.forEach(function (s, j) {
        var raw = s.values[c], known = raw !== null && raw !== undefined, v = known ? raw : 0;
        var bh = h * v / top;
        var bar = node("rect", {"class": "bar", x: start + j * bw, y: y0 - bh, width: bw - 1,
                                height: bh, fill: color(j), "data-value": known ? String(raw) : ""});
        bar.appendChild(node("title", {}, cat + " · " + s.name + ": " + fmt(raw)));
        svg.appendChild(bar);
        if (!v) {  // no bar to see: say "0", or "–" when there is no value at all (not a zero)
          svg.appendChild(node("text", {"class": known ? "zero-value" : "no-value", x: start + j * bw + (bw - 1) / 2,
                                        y: y0 - 3, "text-anchor": "middle", "font-size": 10, fill: color(j)},
                               known ? "0" : "–"));
        }
      });
    });
    xLabels(svg, spec.labels, function (i) { return x0 + i * slot + slot / 2; }, y0);
    frame.appendChild(seriesLegend(spec));
    frame.appendChild(svg);
    fit(svg, width);
  }

  function linePanel(spec, shown, width, height, top) {
    var n = spec.labels.length, x0 = 56, y0 = height - 70, h = y0 - 14, w = width - x0 - 24;
    var step = w / Math.max(n - 1, 1);
    var svg = node("svg", {"class": "chart lines", width: width, height: height, "data-chart": spec.title,
                           "data-counts": spec.counts ? "true" : "false"});
    axes(svg, spec, x0, y0, w, h, top);
    var scale = top[top.length - 1];
    xLabels(svg, spec.labels, function (i) { return x0 + i * step; }, y0);
    spec.series.forEach(function (s, j) {
      var highlighted = shown === null || shown === j;
      var points = s.values.map(function (v, i) { return (x0 + i * step) + "," + (y0 - h * (v || 0) / scale); });
      svg.appendChild(node("polyline", {"class": highlighted ? "series" : "context", points: points.join(" "),
                                        fill: "none", stroke: highlighted ? color(j) : CONTEXT,
                                        "stroke-width": highlighted ? 2 : 1}));
    });
    spec.series.forEach(function (s, j) {
      if (shown !== null && shown !== j) { return; }
      s.values.forEach(function (v, i) {
        var dot = node("circle", {cx: x0 + i * step, cy: y0 - h * (v || 0) / scale, r: 3, fill: color(j)});
        dot.appendChild(node("title", {}, s.name + " · " + spec.labels[i] + ": " + fmt(v)));
        svg.appendChild(dot);
      });
    });
    return svg;
  }

  function renderLines(holder, spec) {
    if (allZero(holder, spec)) { return; }
    var frame = chartFrame(holder, spec), width = availableWidth(holder);
    var top = ticks(maxOf(spec.series), spec.counts);
    if (spec.series.length <= SMALL_MULTIPLES) {
      frame.appendChild(seriesLegend(spec));
      var svg = linePanel(spec, null, width, 250, top);
      frame.appendChild(svg);
      fit(svg, width);
      return;
    }
    /* Small multiples: one panel per series on one shared scale; the others faint for context. */
    var grid = html("div", {"class": "small-multiples"});
    frame.appendChild(grid);
    var columns = width >= 900 ? 3 : 2, panelWidth = Math.floor((width - 12 * (columns - 1)) / columns);
    spec.series.forEach(function (s, j) {
      var panel = html("div", {"class": "panel"});
      panel.appendChild(htmlLegend([{name: s.name, color: color(j)}, {name: "the other runs", color: CONTEXT}]));
      var svg = linePanel(spec, j, panelWidth, 200, top);
      panel.appendChild(svg);
      grid.appendChild(panel);
      fit(svg, panelWidth);
    });
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

  document.addEventListener("toggle", function (ev) {
    Array.prototype.forEach.call(ev.target.querySelectorAll("svg[data-fit-width]"), function (svg) {
      fit(svg, +svg.getAttribute("data-fit-width"));
    });
  }, true);
  window.addEventListener("error", function (ev) { showError(ev.message); });
  try { main(); } catch (err) { showError(err && err.stack ? err.stack : String(err)); }
})();
