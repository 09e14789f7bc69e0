// pathgrade report: case table and trajectory view, built from the JSON blob with text nodes
// only (no innerHTML anywhere: trace content is untrusted).
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("pathgrade-data").textContent);
  var CASES = DATA.cases;
  var PAGE = 100;
  var OPS = { match: "match", substitution: "substitution", insertion: "extra", deletion: "missing" };

  function el(tag, props, children) {
    var node = document.createElement(tag);
    if (props) {
      Object.keys(props).forEach(function (key) {
        if (key === "className") node.className = props[key];
        else if (key === "text") node.textContent = props[key];
        else node.setAttribute(key, props[key]);
      });
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }
  function show(value) {
    if (value === null || value === undefined) return "-";
    if (typeof value === "boolean") return value ? "yes" : "no";
    if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toPrecision(4).replace(/\.?0+$/, "");
    if (typeof value === "string") return value;
    return JSON.stringify(value);
  }
  function json(value) { return value === undefined ? "" : JSON.stringify(value); }

  // ---- the case table -------------------------------------------------------------------
  var metricNames = [];
  (function () {
    var seen = {};
    for (var i = 0; i < Math.min(CASES.length, 1000); i++) {
      Object.keys(CASES[i].metrics).forEach(function (m) { if (!seen[m]) { seen[m] = 1; metricNames.push(m); } });
    }
  })();
  var columns = [
    { key: "case_id", label: "case", get: function (c) { return c.case_id; } },
    { key: "run_id", label: "run", get: function (c) { return c.run_id; } },
    { key: "trial", label: "trial", get: function (c) { return c.trial; }, num: true },
    { key: "ref", label: "ref", get: function (c) { return c.ref; }, num: true }
  ];
  DATA.columns.forEach(function (m) {
    columns.push({ key: "m:" + m, label: m, get: function (c) { return c.metrics[m]; }, num: true });
  });
  columns.push({ key: "defects", label: "defects", get: function (c) { return c.defects.length; }, num: true,
    cell: function (c) { return c.defects.map(function (d) { return d.kind; }).join(", "); } });
  columns.push({ key: "tools", label: "tools", get: function (c) { return c.tools.join(" "); } });

  var state = { q: "", defect: "", tool: "", metric: "", min: null, max: null, sort: null, dir: 1, page: 0 };
  var view = [];
  var haystack = null;

  function fillSelect(id, values) {
    var select = document.getElementById(id);
    values.forEach(function (v) { select.appendChild(el("option", { value: v, text: v })); });
    return select;
  }
  (function () {
    var kinds = {}, tools = {};
    CASES.forEach(function (c) {
      c.defects.forEach(function (d) { kinds[d.kind] = 1; });
      c.tools.forEach(function (t) { tools[t] = 1; });
    });
    fillSelect("f-defect", Object.keys(kinds).sort());
    fillSelect("f-tool", Object.keys(tools).sort());
    fillSelect("f-metric", metricNames);
    state.metric = metricNames.length ? metricNames[0] : "";
  })();

  function searchText(c) {
    var t = c.trace || {};
    return [c.case_id, c.run_id || "", c.group || "", t.query || "", t.answer || ""].join("\n").toLowerCase();
  }
  function matches(c, i) {
    if (state.q) {
      if (haystack === null) haystack = CASES.map(searchText);
      if (haystack[i].indexOf(state.q) < 0) return false;
    }
    if (state.defect === "__none__" && c.defects.length) return false;
    if (state.defect && state.defect !== "__none__" &&
        !c.defects.some(function (d) { return d.kind === state.defect; })) return false;
    if (state.tool && c.tools.indexOf(state.tool) < 0) return false;
    if (state.metric && (state.min !== null || state.max !== null)) {
      var v = c.metrics[state.metric];
      if (v === null || v === undefined) return false;
      v = Number(v);
      if (state.min !== null && v < state.min) return false;
      if (state.max !== null && v > state.max) return false;
    }
    return true;
  }
  function compare(a, b) {
    if (a === b) return 0;
    if (a === null || a === undefined) return 1;
    if (b === null || b === undefined) return -1;
    if (typeof a === "boolean") a = Number(a);
    if (typeof b === "boolean") b = Number(b);
    return a < b ? -1 : 1;
  }
  function refresh() {
    view = [];
    for (var i = 0; i < CASES.length; i++) if (matches(CASES[i], i)) view.push(i);
    if (state.sort) {
      var col = columns.filter(function (c) { return c.key === state.sort; })[0];
      view.sort(function (x, y) {
        var a = col.get(CASES[x]), b = col.get(CASES[y]);
        var an = a === null || a === undefined, bn = b === null || b === undefined;
        if (an || bn) return an && bn ? x - y : (an ? 1 : -1);  // undefined values last
        var r = compare(a, b);
        return r === 0 ? x - y : r * state.dir;
      });
    }
    var pages = Math.max(1, Math.ceil(view.length / PAGE));
    if (state.page >= pages) state.page = pages - 1;
    renderHead();
    renderBody();
    document.getElementById("count").textContent = view.length + " of " + CASES.length + " runs";
    document.getElementById("page").textContent = "page " + (state.page + 1) + " of " + pages;
  }
  function renderHead() {
    var head = document.getElementById("case-head");
    head.textContent = "";
    columns.forEach(function (col) {
      var cls = col.num ? "num" : "";
      if (state.sort === col.key) cls += state.dir > 0 ? " sorted-asc" : " sorted-desc";
      var th = el("th", { className: cls, "data-key": col.key, title: "sort by " + col.label }, [col.label]);
      th.addEventListener("click", function () {
        if (state.sort === col.key) state.dir = -state.dir; else { state.sort = col.key; state.dir = col.num ? -1 : 1; }
        refresh();
      });
      head.appendChild(th);
    });
  }
  function renderBody() {
    var body = document.getElementById("case-body");
    var rows = document.createDocumentFragment();
    view.slice(state.page * PAGE, (state.page + 1) * PAGE).forEach(function (i) {
      var c = CASES[i];
      var tr = el("tr", { "data-row": String(i) });
      columns.forEach(function (col) {
        var text = col.cell ? col.cell(c) : show(col.get(c));
        tr.appendChild(el("td", { className: col.key === "defects" ? "defects" : (col.num ? "num" : "") }, [text]));
      });
      tr.addEventListener("click", function () { location.hash = "#case=" + i; });
      rows.appendChild(tr);
    });
    body.textContent = "";
    body.appendChild(rows);
  }
  function number(id) {
    var raw = document.getElementById(id).value;
    return raw === "" || isNaN(Number(raw)) ? null : Number(raw);
  }
  function onFilter() {
    state.q = document.getElementById("search").value.trim().toLowerCase();
    state.defect = document.getElementById("f-defect").value;
    state.tool = document.getElementById("f-tool").value;
    state.metric = document.getElementById("f-metric").value;
    state.min = number("f-min");
    state.max = number("f-max");
    state.page = 0;
    refresh();
  }
  ["search", "f-min", "f-max"].forEach(function (id) { document.getElementById(id).addEventListener("input", onFilter); });
  ["f-defect", "f-tool", "f-metric"].forEach(function (id) { document.getElementById(id).addEventListener("change", onFilter); });
  document.getElementById("f-reset").addEventListener("click", function () {
    ["search", "f-min", "f-max"].forEach(function (id) { document.getElementById(id).value = ""; });
    ["f-defect", "f-tool"].forEach(function (id) { document.getElementById(id).value = ""; });
    state.sort = null;
    onFilter();
  });
  document.getElementById("prev").addEventListener("click", function () { if (state.page > 0) { state.page--; refresh(); } });
  document.getElementById("next").addEventListener("click", function () {
    if ((state.page + 1) * PAGE < view.length) { state.page++; refresh(); }
  });

  // ---- the trajectory view ----------------------------------------------------------------
  function argEntries(args) {
    var out = {};
    if (Array.isArray(args)) args.forEach(function (v, i) { out["[" + i + "]"] = v; });
    else if (args && typeof args === "object") Object.keys(args).forEach(function (k) { out[k] = args[k]; });
    return out;
  }
  function argDiff(ref, agent) {
    var r = argEntries(ref), a = argEntries(agent), keys = [];
    Object.keys(r).concat(Object.keys(a)).forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); });
    if (!keys.length) return null;
    var same = keys.every(function (k) { return json(r[k]) === json(a[k]); });
    if (same) return null;  // identical arguments: the row already says so
    var table = el("table", { className: "args" }, [
      el("thead", null, [el("tr", null, [el("th", { text: "argument" }), el("th", { text: "reference" }),
        el("th", { text: "agent" }), el("th", { text: "field" })])])]);
    var body = el("tbody");
    keys.forEach(function (k) {
      var inR = Object.prototype.hasOwnProperty.call(r, k), inA = Object.prototype.hasOwnProperty.call(a, k);
      var status = !inA ? "missing" : !inR ? "extra" : json(r[k]) === json(a[k]) ? "same" : "differs";
      body.appendChild(el("tr", { className: status }, [el("td", { text: k }),
        el("td", { text: inR ? json(r[k]) : "-" }), el("td", { text: inA ? json(a[k]) : "-" }), el("td", { text: status })]));
    });
    table.appendChild(body);
    return table;
  }
  function stepCell(step, label) {
    if (!step) return el("td", { className: "step" }, [label || ""]);
    var parts = [el("div", null, [el("b", { text: step.tool }), " " + json(step.arguments)])];
    if (step.output !== undefined) parts.push(el("details", null, [el("summary", { text: "output" }), el("pre", { className: "text", text: show(step.output) })]));
    if (step.error !== undefined) parts.push(el("div", { className: "fail", text: "error: " + step.error }));
    return el("td", { className: "step" }, parts);
  }
  function section(title, children) { return el("div", { className: "block" }, [el("h3", { text: title })].concat(children)); }

  function renderCase(i) {
    var c = CASES[i], t = c.trace || {}, detail = document.getElementById("case-detail");
    detail.textContent = "";
    var refName = c.ref === null || c.ref === undefined ? "no reference path" :
      "chosen reference: reference path #" + c.ref + " of the case";
    detail.appendChild(el("div", { className: "case-head" }, [
      el("h2", { id: "case-title", text: "case " + c.case_id + (c.run_id ? " / run " + c.run_id : "") + " / trial " + c.trial }),
      c.group ? el("span", { text: "group " + c.group }) : null,
      el("span", { id: "chosen-ref", text: refName })]));
    var grid = el("div", { className: "metrics" });
    Object.keys(c.metrics).forEach(function (m) {
      grid.appendChild(el("div", null, [el("span", { text: m }), el("b", { text: show(c.metrics[m]) })]));
    });
    Object.keys(c.usage || {}).forEach(function (u) {
      if (c.usage[u] !== null) grid.appendChild(el("div", null, [el("span", { text: "usage." + u }), el("b", { text: show(c.usage[u]) })]));
    });
    detail.appendChild(section("Metrics", [grid]));
    if (t.query !== undefined) detail.appendChild(section("Query", [el("pre", { className: "text", id: "query", text: t.query })]));
    if (t.answer !== undefined || t.gold_answer !== undefined) {
      var answers = [];
      if (t.answer !== undefined) answers.push(el("div", { text: "agent answer" }), el("pre", { className: "text", id: "answer", text: t.answer }));
      (t.gold_answer || []).forEach(function (g) { answers.push(el("div", { text: "gold answer" }), el("pre", { className: "text", text: g })); });
      detail.appendChild(section("Answer", answers));
    }
    var legend = el("p", { className: "legend" }, Object.keys(OPS).map(function (op) { return el("span", { className: op, text: OPS[op] }); }));
    var table = el("table", { className: "align", id: "alignment" }, [el("thead", null, [el("tr", null, [
      el("th", { text: "#" }), el("th", { text: "reference step" }), el("th", { className: "op", text: "alignment" }),
      el("th", { text: "agent step" }), el("th", { text: "#" })])])]);
    var body = el("tbody");
    var steps = t.steps || [], ref = t.reference || [];
    c.alignment.forEach(function (a) {
      var agentStep = a.agent_step !== null && a.agent_step !== undefined ? steps[a.agent_step] : null;
      var refStep = a.reference_step !== null && a.reference_step !== undefined ? ref[a.reference_step] : null;
      var mark = OPS[a.op] + (a.op === "match" || a.op === "substitution" ? (a.arguments_match ? " (arguments match)" : " (arguments differ)") : "");
      body.appendChild(el("tr", { className: "op-" + a.op }, [
        el("td", { className: "num", text: a.reference_step === null ? "" : String(a.reference_step) }),
        refStep ? stepCell(refStep) : el("td", { className: "step", text: a.reference || "" }),
        el("td", { className: "op", text: mark }),
        agentStep ? stepCell(agentStep) : el("td", { className: "step", text: a.agent || "" }),
        el("td", { className: "num", text: a.agent_step === null ? "" : String(a.agent_step) })]));
      if (agentStep && refStep) {
        var diff = argDiff(refStep.arguments, agentStep.arguments);
        if (diff) body.appendChild(el("tr", { className: "argdiff" }, [el("td"), el("td", { colspan: "4" }, [diff])]));
      }
    });
    if (!c.alignment.length) body.appendChild(el("tr", null, [el("td", { colspan: "5", className: "note", text: "no alignment (no reference path, or no steps)" })]));
    table.appendChild(body);
    detail.appendChild(section("Trajectory: reference and agent steps, aligned", [legend, table,
      c.trace ? null : el("p", { className: "note", text: "This run was stored without traces: step arguments are not available." })]));
    var defects = el("table", { className: "defects", id: "defects" }, [el("thead", null, [el("tr", null, [
      el("th", { text: "defect" }), el("th", { text: "penalty" }), el("th", { text: "detail" }),
      el("th", { text: "agent step" }), el("th", { text: "reference step" })])])]);
    var dbody = el("tbody");
    c.defects.forEach(function (d) {
      dbody.appendChild(el("tr", null, [el("td", { text: d.kind }), el("td", { className: "num", text: show(d.penalty) }),
        el("td", { text: show(d.detail) }), el("td", { className: "num", text: show(d.agent_step) }), el("td", { className: "num", text: show(d.reference_step) })]));
    });
    if (!c.defects.length) dbody.appendChild(el("tr", null, [el("td", { colspan: "5", className: "note", text: "no defects" })]));
    defects.appendChild(dbody);
    detail.appendChild(section("Defects and penalties", [defects]));
    if (t.retrieved !== undefined || t.gold_evidence !== undefined) detail.appendChild(retrieval(c, t));
    window.scrollTo(0, 0);
  }
  function retrieval(c, t) {
    var gold = t.gold_evidence || {}, list = el("ol", { className: "ranked", id: "ranked" }), seen = {};
    (t.retrieved || []).forEach(function (r) {
      var isGold = Object.prototype.hasOwnProperty.call(gold, r.id);
      seen[r.id] = 1;
      list.appendChild(el("li", { className: isGold ? "gold" : "" }, [isGold ? el("span", { className: "mark", text: "\u2713 " }) : null,
        r.id, r.score !== null && r.score !== undefined ? " (score " + show(r.score) + ")" : "",
        isGold ? " gain " + show(gold[r.id]) : ""]));
    });
    var missed = Object.keys(gold).filter(function (g) { return !seen[g]; });
    var metrics = Object.keys(c.metrics).filter(function (m) { return m.indexOf("@") >= 0 || /^(mrr|map|ap|ndcg|recall|precision)/.test(m); })
      .map(function (m) { return m + " " + show(c.metrics[m]); }).join("; ");
    return section("Retrieval for this query", [metrics ? el("p", { text: metrics }) : null, list,
      el("p", { className: "note", text: missed.length ? "gold not retrieved: " + missed.join(", ") : "every gold item was retrieved" })]);
  }

  // ---- sortable tables rendered on the page (slices) --------------------------------------
  // Each cell carries its sort value in data-value ("" = undefined, always last); rows are
  // moved, never rebuilt, and ties keep the original order.
  function sortableTables() {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
      var body = table.tBodies[0];
      Array.prototype.forEach.call(body.rows, function (row, i) { row.setAttribute("data-index", String(i)); });
      var heads = table.tHead.rows[0].cells;
      Array.prototype.forEach.call(heads, function (th, column) {
        var type = th.getAttribute("data-type");
        if (!type) return;
        th.title = "sort by " + th.textContent;
        th.addEventListener("click", function () {
          var dir = th.classList.contains("sorted-desc") ? 1 : th.classList.contains("sorted-asc") ? -1 : (type === "num" ? -1 : 1);
          Array.prototype.forEach.call(heads, function (h) { h.classList.remove("sorted-asc", "sorted-desc"); });
          th.classList.add(dir > 0 ? "sorted-asc" : "sorted-desc");
          var keyed = Array.prototype.map.call(body.rows, function (row) {
            var cell = row.cells[column];
            var raw = cell ? cell.getAttribute("data-value") : null;
            var value = raw === null || raw === "" ? null : (type === "num" ? Number(raw) : raw.toLowerCase());
            if (typeof value === "number" && isNaN(value)) value = null;
            return { row: row, value: value, index: Number(row.getAttribute("data-index")) };
          });
          keyed.sort(function (x, y) {
            if (x.value === null || y.value === null) {
              return x.value === y.value ? x.index - y.index : (x.value === null ? 1 : -1);
            }
            if (x.value === y.value) return x.index - y.index;
            return (x.value < y.value ? -1 : 1) * dir;
          });
          keyed.forEach(function (k) { body.appendChild(k.row); });
        });
      });
    });
  }

  function route() {
    var match = /^#case=(\d+)$/.exec(location.hash);
    var overview = document.getElementById("overview"), caseView = document.getElementById("case-view");
    if (match && Number(match[1]) < CASES.length) {
      renderCase(Number(match[1]));
      overview.hidden = true;
      caseView.hidden = false;
    } else {
      caseView.hidden = true;
      overview.hidden = false;
    }
  }
  window.addEventListener("hashchange", route);
  sortableTables();
  refresh();
  route();
})();
