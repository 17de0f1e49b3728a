"use strict";
(function () {
  var table = document.getElementById("case-table");
  if (!table) { return; }
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var filter = document.getElementById("filter");
  var onlyFailed = document.getElementById("only-failed");
  var shown = document.getElementById("shown");

  function value(row, i) { return row.cells[i].getAttribute("data-v") || ""; }

  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
    th.addEventListener("click", function () {
      var desc = th.classList.contains("asc");
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.classList.remove("asc", "desc"); });
      th.classList.add(desc ? "desc" : "asc");
      var numeric = th.getAttribute("data-type") === "n";
      rows.sort(function (a, b) {
        var x = value(a, i), y = value(b, i), c;
        if (numeric) {
          // rows without a value sort last either way
          if (x === "" || y === "") { return (x === "") - (y === ""); }
          c = parseFloat(x) - parseFloat(y);
        } else {
          c = x.localeCompare(y, undefined, { numeric: true });
        }
        return desc ? -c : c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });

  function apply() {
    var q = filter.value.trim().toLowerCase(), n = 0;
    rows.forEach(function (r) {
      var text = (r.getAttribute("data-id") + " " + r.getAttribute("data-status")).toLowerCase();
      var show = (!q || text.indexOf(q) >= 0) && (!onlyFailed.checked || r.classList.contains("has-fail"));
      r.classList.toggle("hidden", !show);
      var d = document.getElementById("case-" + r.getAttribute("data-id"));
      if (d) { d.classList.toggle("hidden", !show); }
      if (show) { n++; }
    });
    shown.textContent = n + " of " + rows.length + " cases";
  }
  filter.addEventListener("input", apply);
  onlyFailed.addEventListener("change", apply);
  apply();

  var expand = document.getElementById("expand");
  expand.addEventListener("click", function () {
    var open = expand.textContent === "expand all";
    document.querySelectorAll("details.case").forEach(function (d) { d.open = open; });
    expand.textContent = open ? "collapse all" : "expand all";
  });

  // A link to a case (#case-<id>) opens its details.
  function openHash() {
    var id = decodeURIComponent(location.hash.slice(1));
    var d = id && document.getElementById(id);
    if (d && d.tagName === "DETAILS") { d.open = true; d.scrollIntoView(); }
  }
  window.addEventListener("hashchange", openHash);
  openHash();
}());
