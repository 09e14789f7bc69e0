// pathgrade report, part 1 of 4: DOM and text helpers. The four parts share one function
// scope (html.py wraps them in one strict IIFE); no innerHTML anywhere: trace content is
// untrusted.
var DATA = JSON.parse(document.getElementById("pathgrade-data").textContent);
var CASES = DATA.cases;
var DIGITS = DATA.digits || 4;
var FLAGS = {};
DATA.flags.forEach(function (f) { FLAGS[f.key] = f; });

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

// The number rule of pathgrade.report.number_text.format_number, step for step: `digits`
// significant digits, half away from zero on the exact binary value (toExponential and
// toFixed round so), never dropping an integer digit, trailing decimal zeros dropped,
// thousands grouped with ","; scientific below 1e-6 and from 1e15 (rounded exponent).
function stripZeros(text) { return text.indexOf(".") < 0 ? text : text.replace(/0+$/, "").replace(/\.$/, ""); }
function grouped(text) {
  var sign = text.charAt(0) === "-" ? "-" : "", body = sign ? text.slice(1) : text;
  var dot = body.indexOf("."), whole = dot < 0 ? body : body.slice(0, dot), rest = dot < 0 ? "" : body.slice(dot);
  return sign + whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + rest;
}
function formatNumber(x, digits) {
  digits = digits || DIGITS;
  if (x === null || x === undefined) return "-";
  if (typeof x === "boolean") return x ? "yes" : "no";
  if (typeof x !== "number") return String(x);
  if (isNaN(x)) return "-";
  if (!isFinite(x)) return x > 0 ? "\u221e" : "-\u221e";
  if (x === 0) return "0";
  var exp = x.toExponential(digits - 1), at = exp.indexOf("e"), e = Number(exp.slice(at + 1));
  if (e < -6 || e >= 15) return stripZeros(exp.slice(0, at)) + "e" + e;
  var decimals = digits - 1 - e;
  var text = x.toFixed(Math.max(decimals, 0));
  return grouped(decimals > 0 ? stripZeros(text) : text);
}
// The rule of pathgrade.report.number_text.format_value, step for step: a metric's rule
// (DATA.rules, from value_rule: fixed3 for proportions and binary metrics, fixed1 for points,
// count, money, else general) picks fixed decimals, half away from zero on the exact binary
// value (toFixed rounds so), -0.000 written 0.000, grouped by thousands; from 1e15, or for a
// rule with no fixed form (money below 1, general), formatNumber.
function fixed(x, decimals) {
  var text = Math.abs(x).toFixed(decimals);
  return grouped((x < 0 && /[1-9]/.test(text) ? "-" : "") + text);
}
function formatValue(x, rule, signed) {
  if (typeof x !== "number" || !isFinite(x) || Math.abs(x) >= 1e15) rule = "general";
  var text;
  if (rule === "fixed3") text = fixed(x, 3);
  else if (rule === "fixed1") text = fixed(x, 1);
  else if (rule === "count") text = fixed(x, Number.isInteger(x) ? 0 : 3);
  else if (rule === "money" && Math.abs(x) >= 1) text = fixed(x, 2);
  else text = formatNumber(x);
  return signed && x > 0 && /[1-9]/.test(text) ? "+" + text : text;
}
// For the browser test that compares these rules with Python's; read-only.
window.pathgrade = Object.freeze({ formatNumber: formatNumber, formatValue: formatValue });

function show(value) {
  if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined) return formatNumber(value);
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}
// A value of metric `name` as every table writes it (format_value's rule for the metric).
function showValue(name, value, signed) {
  return typeof value === "number" ? formatValue(value, DATA.rules[name] || "general", signed) : show(value);
}
// A metric's value with its unit (DATA.units: quantity metrics of the catalogue, "ms").
function showMetric(name, value) {
  var text = showValue(name, value), unit = DATA.units[name];
  return unit && text !== "-" ? text + " " + unit : text;
}
function json(value) { return value === undefined ? "" : JSON.stringify(value); }

// Defects as "kind ×n", in order of first appearance: "missing_step, unexpected_write ×6".
function defectCounts(defects) {
  var order = [], counts = {};
  defects.forEach(function (d) {
    if (!Object.prototype.hasOwnProperty.call(counts, d.kind)) { counts[d.kind] = 0; order.push(d.kind); }
    counts[d.kind]++;
  });
  return order.map(function (k) { return { kind: k, count: counts[k] }; });
}
function defectText(defects) {
  return defectCounts(defects).map(function (d) { return d.count > 1 ? d.kind + " \u00d7" + d.count : d.kind; }).join(", ");
}
// The flags of agent step j of a run (most severe first), and the badges that show them.
function stepFlags(flags, j) { return (flags && j !== null && j !== undefined && flags[String(j)]) || []; }
function badges(keys) {
  return keys.map(function (k) {
    var f = FLAGS[k];
    return el("span", { className: "badge flag-" + k, title: f.description, text: f.icon + " " + f.label });
  });
}
function flagLegend() {
  return el("p", { className: "legend flags" }, ["marks on agent steps: "].concat(DATA.flags.map(function (f) {
    return el("span", { className: "badge flag-" + f.key, title: f.description, text: f.icon + " " + f.label });
  })));
}
function anyFlags(flags) { return Object.keys(flags || {}).length > 0; }
function section(title, children) { return el("div", { className: "block" }, [el("h3", { text: title })].concat(children)); }
