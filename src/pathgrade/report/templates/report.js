// pathgrade report, part 4 of 4: the case table, the sortable tables and the router.
// ---- the case table -------------------------------------------------------------------
var PAGE = 100;
var metricNames = [];
(function () {
  var seen = {};
  for (var i = 0; i < Math.min(CASES.length, 1000); i++) {
    Object.keys(CASES[i].metrics).forEach(function (m) { if (!seen[m]) { seen[m] = 1; metricNames.push(m); } });
  }
})();
var columns = [
  { key: "case_id", label: "case", get: function (c) { return c.case_id; }, id: true },
  { key: "run_id", label: "run", get: function (c) { return c.run_id; }, id: true },
  { key: "trial", label: "trial", get: function (c) { return c.trial; }, num: true },
  { key: "ref", label: "ref", get: function (c) { return c.ref; }, num: true }
];
DATA.columns.forEach(function (m) {
  columns.push({ key: "m:" + m, label: m, get: function (c) { return c.metrics[m]; }, num: true,
    cell: function (c) { return showValue(m, c.metrics[m]); } });
});
columns.push({ key: "defects", label: "defects", get: function (c) { return c.defects.length; }, num: true,
  cell: function (c) { return defectText(c.defects); } });
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
// A run with a forbidden or unapproved step: its defects cell says so in bold.
function severe(c) {
  return Object.keys(c.flags || {}).some(function (j) { return FLAGS[c.flags[j][0]].severity >= 3; });
}
function renderBody() {
  var body = document.getElementById("case-body");
  var rows = document.createDocumentFragment();
  view.slice(state.page * PAGE, (state.page + 1) * PAGE).forEach(function (i) {
    var c = CASES[i];
    var tr = el("tr", { "data-row": String(i) });
    columns.forEach(function (col) {
      var text = col.cell ? col.cell(c) : show(col.get(c));
      var cls = col.key === "defects" ? "defects" + (severe(c) ? " severe" : "") : col.id ? "id" : col.num ? "num" : "";
      tr.appendChild(el("td", col.id ? { className: cls, title: text } : { className: cls }, [text]));
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
  // #case=N opens a case; #case=N/conversation opens it at its conversation view.
  var match = /^#case=(\d+)(\/conversation)?$/.exec(location.hash);
  var overview = document.getElementById("overview"), caseView = document.getElementById("case-view");
  if (match && Number(match[1]) < CASES.length) {
    renderCase(Number(match[1]));
    overview.hidden = true;
    caseView.hidden = false;
    var conversation = match[2] ? document.getElementById("conversation") : null;
    if (conversation) conversation.scrollIntoView();
  } else {
    caseView.hidden = true;
    overview.hidden = false;
  }
}
window.addEventListener("hashchange", route);
sortableTables();
refresh();
route();
