/* Injected by tests/report/conftest.py: measures the rendered report, writes <pre id=checks>. */
(function () {
  function all(root, selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); }
  all(document, "details").forEach(function (d) { d.open = true; });
  setTimeout(function () {
    var out = {clipped: [], texts: 0, count_ticks: [], legend_missing: [], coloured_visuals: 0,
               member_labels: [], all_zero: [], drawn_charts: [], chart_widths: [], charts: 0, panels: 0,
               zero_bars: 0, zero_labels: 0, no_value_bars: 0, no_value_labels: 0};
    all(document, "svg").forEach(function (svg) {
      var box = svg.getBoundingClientRect();
      all(svg, "text").forEach(function (text) {
        var b = text.getBoundingClientRect();
        if (!b.width) { return; }
        out.texts += 1;
        if (b.left < box.left - 1 || b.right > box.right + 1 || b.top < box.top - 1 || b.bottom > box.bottom + 1) {
          out.clipped.push(text.textContent);
        }
      });
    });
    all(document, 'svg[data-counts="true"] text.tick').forEach(function (t) { out.count_ticks.push(t.textContent); });
    all(document, "[data-viz-id]").forEach(function (holder) {
      var legend = all(holder, ".legend-entry").map(function (e) { return e.getAttribute("data-color"); });
      var marks = all(holder, "rect.cell, rect.bar, rect.unowned, rect.count-bar, polyline.series");
      if (marks.length) { out.coloured_visuals += 1; }
      marks.forEach(function (m) {
        var colour = m.tagName === "polyline" ? m.getAttribute("stroke") : m.getAttribute("fill");
        if (legend.indexOf(colour) < 0) { out.legend_missing.push(holder.getAttribute("data-viz-id") + " " + colour); }
      });
      all(holder, "svg.chart").forEach(function (svg) {
        out.charts += 1;
        out.drawn_charts.push(holder.getAttribute("data-viz-id"));
        if (!svg.closest(".small-multiples")) {
          out.chart_widths.push({width: svg.getBoundingClientRect().width, holder: holder.clientWidth});
        }
      });
      out.panels += all(holder, ".small-multiples .panel").length;
    });
    all(document, "svg.bars").forEach(function (svg) {
      var bars = all(svg, "rect.bar");
      out.zero_bars += bars.filter(function (r) { return r.getAttribute("data-value") === "0"; }).length;
      out.no_value_bars += bars.filter(function (r) { return r.getAttribute("data-value") === ""; }).length;
      out.zero_labels += all(svg, "text.zero-value").filter(function (t) { return t.textContent === "0"; }).length;
      out.no_value_labels += all(svg, "text.no-value").filter(function (t) { return t.textContent === "–"; }).length;
    });
    all(document, "text.member-label").forEach(function (t) {
      out.member_labels.push([t.getAttribute("data-member"), t.firstChild.textContent]);
    });
    all(document, "p.all-zero").forEach(function (p) {
      out.all_zero.push([p.parentNode.getAttribute("data-viz-id"), p.textContent]);
    });
    var pre = document.createElement("pre");
    pre.id = "checks";
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  }, 500);
})();
