// pathgrade report, part 3 of 4: the conversation view of a run with turns (c.conversation,
// pathgrade.reporting.conversation): one row per turn with the user's message, the agent's
// calls (as in the path view, with their step marks), the reply, the turn's path_score,
// defects and notes; what ended the conversation and its notes above. Messages are text
// nodes; a long one is clipped, the whole text one click away (details).
var CLIP = 200;

function clipped(text, className) {
  text = text === null || text === undefined ? "" : String(text);
  var chars = Array.from(text);
  if (chars.length <= CLIP) return el("div", { className: className, text: text });
  return el("details", { className: className + " clipped" }, [
    el("summary", { text: chars.slice(0, CLIP).join("") + "\u2026 (" + chars.length + " characters)" }),
    el("pre", { className: "text", text: text })]);
}
// The most severe flags of a turn's calls (flags come most severe first): the row's style.
function turnFlags(c, turn) {
  var top = [];
  (turn.steps || []).forEach(function (j) {
    var f = stepFlags(c.flags, j);
    if (f.length && (!top.length || FLAGS[f[0]].severity > FLAGS[top[0]].severity)) top = f;
  });
  return top;
}
function callsCell(c, t, turn) {
  var steps = t.steps || [], cell = el("td", { className: "step calls" });
  turn.calls.forEach(function (call, k) {
    var j = turn.steps ? turn.steps[k] : null, step = j === null || j === undefined ? null : steps[j] || null;
    var where = j === null || j === undefined ? null : el("span", { className: "num step-at", title: "agent step " + j + " of the run", text: "#" + j + " " });
    cell.appendChild(el("div", { className: "call" }, [where].concat(stepParts(step, stepFlags(c.flags, j), show(call)))));
  });
  if (!turn.calls.length) cell.appendChild(el("span", { className: "note", text: "no calls" }));
  return cell;
}
function defectList(defects) {
  if (!defects.length) return el("span", { className: "note", text: "none" });
  return el("ul", { className: "turn-defects" }, defects.map(function (d) {
    var at = d.reference_step !== undefined && d.reference_step !== null ? ", reference step " + show(d.reference_step) : "";
    return el("li", null, [el("b", { text: show(d.kind) }), " (" + show(d.penalty) + " points" + at + ")",
      d.detail ? ": " + show(d.detail) : null]);
  }));
}
function noteList(notes, id) {
  var props = id ? { className: "notes", id: id } : { className: "notes" };
  return el("ul", props, notes.map(function (n) { return el("li", { text: show(n) }); }));
}
function conversationView(c, t) {
  var conv = c.conversation, turns = conv.turns || [];
  var scored = turns.some(function (u) { return u.path_score !== undefined || u.defects !== undefined; });
  var heads = ["turn", "user", "agent calls", "reply"].concat(scored ? ["path_score", "defects"] : []).concat(["notes"]);
  var table = el("table", { className: "conversation", id: "conversation-table" }, [el("thead", null, [el("tr", null,
    heads.map(function (h) { return el("th", { className: h === "turn" || h === "path_score" ? "num" : "", text: h }); }))])]);
  var body = el("tbody");
  turns.forEach(function (u, i) {
    var off = typeof u.path_score === "number" && u.path_score < 100;
    var cells = [el("td", { className: "num", text: show(u.turn === undefined ? i + 1 : u.turn) }),
      el("td", { className: "user" }, [clipped(u.user, "message")]), callsCell(c, t, u),
      el("td", { className: "reply" }, [clipped(u.reply, "message")])];
    if (scored) cells.push(el("td", { className: "num", text: showValue("path_score", u.path_score) }), el("td", null, [defectList(u.defects || [])]));
    cells.push(el("td", { className: "turn-notes" }, [(u.notes || []).length ? noteList(u.notes) : null]));
    body.appendChild(el("tr", { className: rowClass("turn" + (off ? " off-path" : ""), turnFlags(c, u)), "data-turn": String(i + 1) }, cells));
  });
  if (!turns.length) body.appendChild(el("tr", null, [el("td", { colspan: String(heads.length), className: "note", text: "no turns recorded" })]));
  table.appendChild(body);
  var ended = conv.ended_by === null || conv.ended_by === undefined ? "not recorded" : show(conv.ended_by);
  var head = el("p", { id: "conversation-end", text: turns.length + " turn" + (turns.length === 1 ? "" : "s") + "; ended by: " + ended });
  var notes = (conv.notes || []).length ? noteList(conv.notes, "conversation-notes") : el("p", { className: "note", id: "conversation-notes", text: "no notes on the conversation" });
  var marked = turns.some(function (u) { return turnFlags(c, u).length; });
  var explain = scored ? "Each turn's path_score is its calls scored against the case's reference for that turn (turn_references); a turn below 100 is shaded." :
    "The case has no turn references: turns are not scored one by one.";
  var block = el("div", { className: "block", id: "conversation" }, [el("h3", { text: "Conversation" }), head, notes,
    marked ? flagLegend() : null, el("div", { className: "table-wrap" }, [table]), el("p", { className: "note", text: explain })]);
  return block;
}
