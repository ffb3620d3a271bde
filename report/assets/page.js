// mcpbench HTML report: draws the charts described in #mcpbench-data with
// uPlot. Every decision about what to draw is made by mcpbench (report/
// html_*.go); this script only turns those descriptions into uPlot charts.
// When it is done it marks #mcpbench-status ready (or failed), which is
// what the browser tests wait for.
(function () {
  "use strict";
  var status = document.getElementById("mcpbench-status");

  // Errors caught before this script ran (the page's first script keeps
  // them in window.mcpbenchErrors) and after it are listed in the page.
  var errors = window.mcpbenchErrors;
  function show(msg) {
    var list = document.getElementById("mcpbench-errors");
    var li = document.createElement("li");
    li.textContent = String(msg);
    list.appendChild(li);
    list.hidden = false;
    status.dataset.state = "failed";
  }
  function fail(msg) {
    errors.push(String(msg));
  }

  // Numbers as the tables print them: few digits, no exponent.
  function fmtNum(v) {
    if (v == null || !isFinite(v)) return "–";
    var a = Math.abs(v);
    if (a >= 1000) return Math.round(v).toLocaleString("en-US");
    if (a >= 100) return v.toFixed(0);
    if (a >= 10) return v.toFixed(1);
    if (a >= 1) return v.toFixed(2);
    return v.toPrecision(2);
  }

  // Axis labels: as few digits as the value needs (8, 12.5, 0.25).
  function fmtTick(v) {
    if (v == null || !isFinite(v)) return "";
    if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString("en-US");
    return String(Number(v.toPrecision(3)));
  }

  // x = 1/(1-p) back to a percentile label: 10 -> "90%", 1000 -> "99.9%".
  function fmtPercentile(x) {
    if (x == null) return "–";
    var p = 100 * (1 - 1 / x);
    if (p <= 0) return "0%";
    var digits = Math.max(0, Math.ceil(-Math.log10(100 - p)) + 1);
    var s = p.toFixed(Math.min(digits, 6));
    if (s.indexOf(".") >= 0) s = s.replace(/\.?0+$/, "");
    return s + "%";
  }

  function fmtSeconds(s) {
    if (s == null) return "–";
    if (s < 120) return fmtTick(s) + " s";
    var m = Math.floor(s / 60), r = Math.round(s - 60 * m);
    return m + ":" + (r < 10 ? "0" : "") + r;
  }

  function xFormatter(kind) {
    if (kind === "percentile") return fmtPercentile;
    if (kind === "seconds") return fmtSeconds;
    return fmtTick;
  }

  // Powers of ten inside [min, max]: the percentile axis's 0%, 90%, 99% ...
  function decades(u, axis, min, max) {
    var out = [];
    for (var v = 1; v <= max * 1.0001; v *= 10) if (v >= min / 1.0001) out.push(v);
    return out;
  }

  // 1, 2, 5, 10, 20, 50 … inside [min, max]: a log axis's labels without
  // the clutter of every integer in each decade.
  function oneTwoFive(u, axis, min, max) {
    var out = [];
    for (var d = Math.pow(10, Math.floor(Math.log10(min))); d <= max; d *= 10) {
      [1, 2, 5].forEach(function (m) {
        var v = d * m;
        if (v >= min / 1.0001 && v <= max * 1.0001) out.push(v);
      });
    }
    return out;
  }

  // Dashed reference lines with their labels kept inside the plot area.
  function refLinesPlugin(spec) {
    function draw(u) {
      var ctx = u.ctx, b = u.bbox, pr = uPlot.pxRatio;
      ctx.save();
      ctx.beginPath();
      ctx.rect(b.left, b.top, b.width, b.height);
      ctx.clip();
      ctx.font = Math.round(12 * pr) + "px system-ui, sans-serif";
      ctx.textAlign = "left";
      ctx.textBaseline = "alphabetic";
      ctx.lineWidth = 1.5 * pr;
      ctx.setLineDash([6 * pr, 4 * pr]);
      var pad = 4 * pr, lineH = 15 * pr;
      (spec.hlines || []).forEach(function (m, i) {
        var y = u.valToPos(m.at, "y", true);
        if (!isFinite(y)) return;
        ctx.strokeStyle = ctx.fillStyle = m.color;
        ctx.beginPath(); ctx.moveTo(b.left, y); ctx.lineTo(b.left + b.width, y); ctx.stroke();
        // Labels sit at the left end, where load is lowest and the data
        // usually lies well below the bound; a label too close to the
        // top goes under its line instead.
        var ty = y - pad;
        if (ty - lineH < b.top) ty = y + lineH;
        var tx = b.left + pad;
        for (var j = 0; j < i; j++) tx += ctx.measureText((spec.hlines[j].label) + "   ").width;
        ctx.fillText(m.label, tx, ty);
      });
      (spec.vlines || []).forEach(function (m, i) {
        var x = u.valToPos(m.at, "x", true);
        if (!isFinite(x)) return;
        ctx.strokeStyle = ctx.fillStyle = m.color;
        ctx.beginPath(); ctx.moveTo(x, b.top); ctx.lineTo(x, b.top + b.height); ctx.stroke();
        var w = ctx.measureText(m.label).width;
        // Right of the line, or left of it when the label would leave the
        // plot area.
        var tx = x + pad;
        if (tx + w > b.left + b.width) tx = x - pad - w;
        ctx.fillText(m.label, Math.max(b.left + pad, tx), b.top + lineH * (i + 1));
      });
      ctx.restore();
    }
    return { hooks: { draw: draw } };
  }

  // A y range from zero (or the data's log range), with headroom so a
  // plateau does not run along the frame; fit spans the data only, for a
  // gauge whose growth matters more than its size.
  function scaleRange(log, fit) {
    return function (u, min, max) {
      if (min == null || max == null) return [0, 1];
      if (log) return uPlot.rangeLog(Math.max(min, 1e-3), max, 10, true);
      if (fit) {
        var pad = max > min ? 0.1 * (max - min) : Math.abs(max) * 0.05 || 1;
        return [min - pad, max + pad];
      }
      if (max === min) max = min + 1;
      return [Math.min(0, min), max + 0.08 * (max - min)];
    };
  }

  function options(spec, width) {
    var fmtX = xFormatter(spec.xAxis);
    var logX = spec.xAxis === "log" || spec.xAxis === "percentile";
    var right = spec.series.some(function (s) { return s.right; });
    var series = [{ label: spec.xLabel, value: function (u, v) { return fmtX(v); } }];
    spec.series.forEach(function (s) {
      var o = {
        label: s.label,
        stroke: s.color,
        width: 2,
        scale: s.right ? "y2" : "y",
        spanGaps: true,
        points: { show: !!s.points, size: 6, fill: s.color },
        value: function (u, v) { return fmtNum(v); }
      };
      if (s.dash) o.dash = [6, 4];
      if (s.marks) {
        o.paths = function () { return null; };
        o.points = { show: true, size: 9, width: 2, stroke: s.color, fill: "#ffffff" };
      }
      if (s.bars) {
        o.paths = uPlot.paths.bars({ size: [0.8, 12] });
        o.fill = s.color + "66";
        o.width = 1;
      }
      series.push(o);
    });
    var keepAll = function (u, splits) { return splits; };
    var xAxis = { label: spec.xLabel, values: function (u, vals) { return vals.map(fmtX); } };
    if (spec.xAxis === "percentile") {
      xAxis.splits = decades;
      xAxis.filter = keepAll;
    }
    if (spec.ticks && spec.ticks.length) {
      // Ticks at the measured loads, so they can be read off directly.
      xAxis.splits = function () { return spec.ticks.slice(); };
      xAxis.filter = keepAll;
    }
    var yTicks = function (u, vals) { return vals.map(fmtTick); };
    var yAxis = { label: spec.yLabel, scale: "y", values: yTicks };
    if (spec.yLog) {
      yAxis.splits = oneTwoFive;
      yAxis.filter = keepAll;
    }
    var axes = [xAxis, yAxis];
    var scales = { x: { time: false }, y: { distr: spec.yLog ? 3 : 1, range: scaleRange(spec.yLog, spec.yFit) } };
    if (logX) scales.x.distr = 3;
    if (logX || spec.xAxis === "seconds") {
      // The axis spans the data exactly: no empty decade after the maximum.
      scales.x.range = function (u, min, max) { return [min, max]; };
    }
    if (right) {
      axes.push({ label: spec.y2Label, scale: "y2", side: 1, grid: { show: false }, values: yTicks });
      scales.y2 = { range: scaleRange(false) };
    }
    return {
      title: spec.title,
      width: width,
      height: 320,
      series: series,
      axes: axes,
      scales: scales,
      legend: { live: true },
      plugins: [refLinesPlugin(spec)]
    };
  }

  function dataOf(spec, ys) {
    return [spec.x].concat(ys);
  }

  function buildChart(spec) {
    var el = document.getElementById("chart-" + spec.id);
    if (!el) throw new Error("no container for chart " + spec.id);
    var width = Math.max(320, el.clientWidth || 800);
    var ys = spec.series.map(function (s) { return s.y; });
    if (spec.choices && spec.choices.length) {
      var select = document.createElement("select");
      select.setAttribute("aria-label", "which data the chart shows");
      spec.choices.forEach(function (c, i) {
        var o = document.createElement("option");
        o.value = String(i);
        o.textContent = c.label;
        select.appendChild(o);
      });
      el.parentNode.insertBefore(select, el);
      // A choice too short to draw says so rather than show empty axes.
      var note = document.createElement("p");
      note.className = "chart-note";
      el.parentNode.insertBefore(note, el);
      var showNote = function (i) {
        note.textContent = spec.choices[i].note || "";
        note.hidden = !note.textContent;
      };
      select.value = String(spec.selected || 0);
      ys = spec.choices[spec.selected || 0].y;
      showNote(spec.selected || 0);
    }
    var u = new uPlot(options(spec, width), dataOf(spec, ys), el);
    if (select) {
      select.addEventListener("change", function () {
        u.setData(dataOf(spec, spec.choices[Number(select.value)].y));
        showNote(Number(select.value));
      });
    }
    window.addEventListener("resize", function () {
      u.setSize({ width: Math.max(320, el.clientWidth || width), height: 320 });
    });
    return u;
  }

  try {
    var specs = JSON.parse(document.getElementById("mcpbench-data").textContent) || [];
    var drawn = 0;
    specs.forEach(function (spec) {
      try {
        buildChart(spec);
        drawn++;
      } catch (e) {
        fail("chart " + spec.id + ": " + (e && e.message ? e.message : e));
      }
    });
    status.dataset.charts = String(drawn);
    // Every resource the page fetched: an offline report fetches none.
    status.dataset.resources = String(performance.getEntriesByType("resource").length);
  } catch (e) {
    fail(e && e.message ? e.message : e);
  }
  errors.forEach(show);
  errors.push = function (m) { Array.prototype.push.call(errors, m); show(m); return errors.length; };
  if (status.dataset.state !== "failed") status.dataset.state = "ready";
})();
