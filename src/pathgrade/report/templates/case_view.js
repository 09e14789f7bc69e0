// pathgrade report, part 2 of 4: the case view (trajectory, defects, retrieval) and, for a
// changed case, the baseline's and the variant's paths side by side (DATA.pairs).
var OPS = { match: "match", substitution: "substitution", insertion: "extra", deletion: "missing" };
var PAIR_OPS = { same: "same call", changed: "arguments changed", replaced: "other tool",
  added: "only in the variant", dropped: "only in the baseline" };

function argEntries(args) {
  var out = {};
  if (Array.isArray(args)) args.forEach(function (v, i) { out["[" + i + "]"] = v; });
  else if (args && typeof args === "object") Object.keys(args).forEach(function (k) { out[k] = args[k]; });
  return out;
}
function argDiff(ref, agent, names) {
  var r = argEntries(ref), a = argEntries(agent), keys = [];
  Object.keys(r).concat(Object.keys(a)).forEach(function (k) { if (keys.indexOf(k) < 0) keys.push(k); });
  if (!keys.length) return null;
  var same = keys.every(function (k) { return json(r[k]) === json(a[k]); });
  if (same) return null;  // identical arguments: the row already says so
  names = names || ["reference", "agent"];
  var table = el("table", { className: "args" }, [
    el("thead", null, [el("tr", null, [el("th", { text: "argument" }), el("th", { text: names[0] }),
      el("th", { text: names[1] }), el("th", { text: "field" })])])]);
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
// A pair compared field by field (the aligned step's fields): each field's mode, what it
// measured against the threshold, and whether it matched (null: undefined, a judge error).
function fieldMeasure(f) {
  if (f.decided_by && String(f.decided_by).indexOf("guard:") === 0) return f.decided_by + (f.reason ? " (" + f.reason + ")" : "");
  if (f.uncertain && f.match === null && f.judge_error === undefined) return "uncertain " + show(f.similarity);
  if (f.judge_error !== undefined) return "judge_error: " + f.judge_error;
  if (f.verdict !== undefined) return (f.verdict ? "equivalent" : "not equivalent") + (f.judge_id ? " (id " + String(f.judge_id).slice(0, 12) + ")" : "");
  if (f.similarity !== undefined) return show(f.similarity);
  if (f.difference !== undefined) return "|difference| " + show(f.difference);
  return "";
}
function fieldTable(fields) {
  var table = el("table", { className: "args fields" }, [el("thead", null, [el("tr", null, [el("th", { text: "field" }),
    el("th", { text: "mode" }), el("th", { text: "measured" }), el("th", { text: "threshold" }), el("th", { text: "result" })])])]);
  var body = el("tbody");
  fields.forEach(function (f) {
    var result = f.match === null || f.match === undefined ? "undefined" : f.match ? "match" : "differs";
    body.appendChild(el("tr", { className: result === "match" ? "same" : result }, [el("td", { text: String(f.field || "(all arguments)") }),
      el("td", { text: String(f.mode) }), el("td", { text: fieldMeasure(f) }),
      el("td", { text: f.threshold === undefined ? "" : show(f.threshold) }), el("td", { text: result })]));
  });
  table.appendChild(body);
  return table;
}
// A step as shown: its badges (flags), tool and arguments, output and error (the recorded
// text `fallback` when there is no step); stepCell puts it in a table cell.
function stepParts(step, flags, fallback) {
  var marks = badges(flags || []);
  if (!step) return marks.concat([fallback || ""]);
  var call = step.text !== undefined ? [el("b", { text: step.text })] : [el("b", { text: step.tool }), " " + json(step.arguments)];
  var parts = [el("div", null, marks.concat(call))];
  if (step.output !== undefined) parts.push(el("details", null, [el("summary", { text: "output" }), el("pre", { className: "text", text: show(step.output) })]));
  if (step.error !== undefined) parts.push(el("div", { className: "fail", text: "error: " + step.error }));
  return parts;
}
function stepCell(step, flags, fallback) { return el("td", { className: "step" }, stepParts(step, flags, fallback)); }
// The row class of a step: its op, and its most severe flag (flags come most severe first).
function rowClass(base, flags) { return base + (flags.length ? " flagged flag-" + flags[0] : ""); }
function position(j) { return j === null || j === undefined ? "" : String(j); }

function trajectory(c, t) {
  var legend = el("p", { className: "legend" }, Object.keys(OPS).map(function (op) { return el("span", { className: op, text: OPS[op] }); }));
  var table = el("table", { className: "align", id: "alignment" }, [el("thead", null, [el("tr", null, [
    el("th", { text: "#" }), el("th", { text: "reference step" }), el("th", { className: "op", text: "alignment" }),
    el("th", { text: "agent step" }), el("th", { text: "#" })])])]);
  var body = el("tbody");
  var steps = t.steps || [], ref = t.reference || [];
  c.alignment.forEach(function (a) {
    var agentStep = a.agent_step !== null && a.agent_step !== undefined ? steps[a.agent_step] : null;
    var refStep = a.reference_step !== null && a.reference_step !== undefined ? ref[a.reference_step] : null;
    var flags = stepFlags(c.flags, a.agent_step);
    var mark = OPS[a.op] + (a.op === "match" || a.op === "substitution" ? (a.arguments_match ? " (arguments match)" : " (arguments differ)") : "");
    body.appendChild(el("tr", { className: rowClass("op-" + a.op, flags) }, [
      el("td", { className: "num", text: position(a.reference_step) }),
      refStep ? stepCell(refStep) : el("td", { className: "step", text: a.reference || "" }),
      el("td", { className: "op", text: mark }),
      stepCell(agentStep, flags, a.agent || ""),
      el("td", { className: "num", text: position(a.agent_step) })]));
    if (agentStep && refStep) {
      var diff = argDiff(refStep.arguments, agentStep.arguments);
      if (diff) body.appendChild(el("tr", { className: "argdiff" }, [el("td"), el("td", { colspan: "4" }, [diff])]));
    }
    if (Array.isArray(a.fields) && a.fields.length) body.appendChild(el("tr", { className: "argdiff fieldrow" }, [el("td"), el("td", { colspan: "4" }, [fieldTable(a.fields)])]));
  });
  if (!c.alignment.length) body.appendChild(el("tr", null, [el("td", { colspan: "5", className: "note", text: "no alignment (no reference path, or no steps)" })]));
  table.appendChild(body);
  return section("Trajectory: reference and agent steps, aligned", [legend, flagLegend(), el("div", { className: "table-wrap" }, [table]),
    c.trace ? null : el("p", { className: "note", text: "This run was stored without traces: step arguments are not available." })]);
}
function defectTable(c, t) {
  var steps = t.steps || [];
  var table = el("table", { className: "defects", id: "defects" }, [el("thead", null, [el("tr", null, [
    el("th", { text: "defect" }), el("th", { text: "penalty" }), el("th", { text: "detail" }),
    el("th", { text: "agent step" }), el("th", { text: "reference step" })])])]);
  var body = el("tbody");
  c.defects.forEach(function (d) {
    var flags = stepFlags(c.flags, d.agent_step), step = d.agent_step !== undefined ? steps[d.agent_step] : null;
    body.appendChild(el("tr", { className: rowClass("", flags) }, [el("td", { text: d.kind }), el("td", { className: "num", text: show(d.penalty) }),
      el("td", { text: show(d.detail) }), el("td", { className: "num", text: show(d.agent_step) + (step ? " (" + step.tool + ")" : "") }),
      el("td", { className: "num", text: show(d.reference_step) })]));
  });
  if (!c.defects.length) body.appendChild(el("tr", null, [el("td", { colspan: "5", className: "note", text: "no defects" })]));
  table.appendChild(body);
  var total = c.defects.length ? " (" + defectText(c.defects) + ")" : "";
  return section("Defects and penalties" + total, [el("div", { className: "table-wrap" }, [table])]);
}

function pairView(pair, c) {
  var b = pair.baseline, v = pair.variant;
  var legend = el("p", { className: "legend" }, Object.keys(PAIR_OPS).map(function (op) { return el("span", { className: "pair-" + op, text: PAIR_OPS[op] }); }));
  var table = el("table", { className: "align pair", id: "pair" }, [el("thead", null, [el("tr", null, [
    el("th", { text: "#" }), el("th", { text: "baseline " + DATA.baseline + " (trial " + b.trial + ")" }), el("th", { className: "op", text: "change" }),
    el("th", { text: "variant " + DATA.run + " (trial " + v.trial + ")" }), el("th", { text: "#" })])])]);
  var body = el("tbody");
  pair.rows.forEach(function (r) {
    var bs = r.b === null ? null : b.steps[r.b], vs = r.v === null ? null : v.steps[r.v];
    var bf = stepFlags(b.flags, r.b), vf = stepFlags(v.flags, r.v), top = vf.length ? vf : bf;
    body.appendChild(el("tr", { className: rowClass("pair-" + r.op, top) }, [
      el("td", { className: "num", text: position(r.b) }), stepCell(bs, bf, ""),
      el("td", { className: "op", text: PAIR_OPS[r.op] }), stepCell(vs, vf, ""),
      el("td", { className: "num", text: position(r.v) })]));
    if (r.op === "changed" && bs && vs && bs.text === undefined) {
      var diff = argDiff(bs.arguments, vs.arguments, ["baseline", "variant"]);
      if (diff) body.appendChild(el("tr", { className: "argdiff" }, [el("td"), el("td", { colspan: "4" }, [diff])]));
    }
  });
  if (!pair.rows.length) body.appendChild(el("tr", null, [el("td", { colspan: "5", className: "note", text: "neither run made a call" })]));
  table.appendChild(body);
  var defects = el("table", { className: "defect-change", id: "defect-change" }, [el("thead", null, [el("tr", null, [
    el("th", { text: "defect" }), el("th", { className: "num", text: "baseline" }), el("th", { className: "num", text: "variant" }),
    el("th", { className: "num", text: "change" })])])]);
  var dbody = el("tbody");
  pair.defects.forEach(function (d) {
    var change = d.variant - d.baseline;
    dbody.appendChild(el("tr", { className: change > 0 ? "worse" : change < 0 ? "better" : "" }, [el("td", { text: d.kind }),
      el("td", { className: "num", text: show(d.baseline) }), el("td", { className: "num", text: show(d.variant) }),
      el("td", { className: "num", text: (change > 0 ? "+" : "") + show(change) })]));
  });
  if (!pair.defects.length) dbody.appendChild(el("tr", null, [el("td", { colspan: "4", className: "note", text: "no defects on either side" })]));
  defects.appendChild(dbody);
  var metric = DATA.change_metric, title = "Baseline vs variant: the two paths, aligned to each other";
  var before = el("p", { id: "pair-metric", text: metric + " of these two runs: baseline " +
    showMetric(metric, pair.baseline_value) + ", variant " + showMetric(metric, pair.variant_value) });
  return el("div", { className: "block", id: "pair-view" }, [el("h3", { text: title }), before, legend,
    anyFlags(b.flags) || anyFlags(v.flags) ? flagLegend() : null,
    el("div", { className: "table-wrap" }, [table]), el("h3", { text: "Change in defects" }), el("div", { className: "table-wrap" }, [defects]),
    el("p", { className: "note", text: "The variant's run is aligned to the baseline's run of the same case (same trial when there is one) by the trajectory alignment: fewest tool edits, then most calls equal in tool and arguments." })]);
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
    .map(function (m) { return m + " " + showValue(m, c.metrics[m]); }).join("; ");
  return section("Retrieval for this query", [metrics ? el("p", { text: metrics }) : null, list,
    el("p", { className: "note", text: missed.length ? "gold not retrieved: " + missed.join(", ") : "every gold item was retrieved" })]);
}

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
    grid.appendChild(el("div", null, [el("span", { text: m }), el("b", { text: showMetric(m, c.metrics[m]) })]));
  });
  Object.keys(c.usage || {}).forEach(function (u) {
    if (c.usage[u] !== null) grid.appendChild(el("div", null, [el("span", { text: "usage." + u }), el("b", { text: showMetric("usage." + u, c.usage[u]) })]));
  });
  detail.appendChild(section("Metrics", [grid]));
  var pair = DATA.pairs[String(i)];
  if (pair) detail.appendChild(pairView(pair, c));
  if (c.conversation) detail.appendChild(conversationView(c, t));
  if (t.query !== undefined) detail.appendChild(section("Query", [el("pre", { className: "text", id: "query", text: t.query })]));
  if (t.answer !== undefined || t.gold_answer !== undefined) {
    var answers = [];
    if (t.answer !== undefined) answers.push(el("div", { text: "agent answer" }), el("pre", { className: "text", id: "answer", text: t.answer }));
    (t.gold_answer || []).forEach(function (g) { answers.push(el("div", { text: "gold answer" }), el("pre", { className: "text", text: g })); });
    detail.appendChild(section("Answer", answers));
  }
  detail.appendChild(trajectory(c, t));
  detail.appendChild(defectTable(c, t));
  if (t.retrieved !== undefined || t.gold_evidence !== undefined) detail.appendChild(retrieval(c, t));
  window.scrollTo(0, 0);
}
