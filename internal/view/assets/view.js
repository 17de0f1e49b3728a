"use strict";
// The run page of a run in progress polls the server for the cases that
// finished and adds their rows. Every text is set with textContent: the
// agent's words never become markup.
(function () {
  var table = document.getElementById("cases");
  if (!table) { return; }
  var url = table.getAttribute("data-live");
  if (!url || table.getAttribute("data-filtered") === "true") { return; }
  var body = table.tBodies[0];
  var width = table.tHead.rows[0].cells.length;
  var verdict = document.getElementById("verdict");
  // row is the table's row of case id, if it has one with a result.
  function has(id) {
    for (var i = 0; i < body.rows.length; i++) {
      var r = body.rows[i];
      if (r.getAttribute("data-id") === id) {
        if (r.cells[1] && r.cells[1].textContent === "no result") { body.removeChild(r); return false; }
        return true;
      }
    }
    return false;
  }
  function cell(tr, text) { var td = document.createElement("td"); td.textContent = text; tr.appendChild(td); return td; }
  function add(c) {
    var tr = document.createElement("tr");
    tr.className = "case-row new";
    tr.setAttribute("data-id", c.id);
    var td = document.createElement("td");
    var a = document.createElement("a");
    a.href = c.href;
    a.textContent = c.id;
    td.appendChild(a);
    tr.appendChild(td);
    cell(tr, c.status).className = "st-" + c.status;
    for (var i = 6; i < width; i++) { cell(tr, "–"); } // the judges: not scored yet
    cell(tr, c.cost);
    cell(tr, c.duration);
    cell(tr, String(c.turns));
    cell(tr, String(c.denials));
    body.appendChild(tr);
  }
  function poll() {
    fetch(url, { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (s) {
      s.cases.forEach(function (c) { if (!has(c.id)) { add(c); } });
      var shown = document.getElementById("shown");
      if (shown) { shown.textContent = body.rows.length + " cases so far"; }
      if (s.running) { setTimeout(poll, 1000); } else if (verdict) { verdict.textContent = "the run finished: reload for its verdict"; }
    }).catch(function () { setTimeout(poll, 3000); });
  }
  setTimeout(poll, 500);
})();
