"use strict";
(function () {
  var form = document.getElementById("filters");
  var articles = Array.prototype.slice.call(document.querySelectorAll("article.inv"));
  var runs = Array.prototype.slice.call(document.querySelectorAll("section.run"));
  var search = document.getElementById("search");
  var tool = document.getElementById("tool");
  var mismatch = document.getElementById("mismatch");
  var shown = document.getElementById("shown");
  var texts = articles.map(function (a) {
    var parts = a.querySelectorAll(".head, ol.refs");
    var t = "";
    for (var i = 0; i < parts.length; i++) t += parts[i].textContent + "\n";
    return t.toLowerCase();
  });
  function apply() {
    var statuses = {};
    var boxes = form.querySelectorAll('input[name="status"]');
    for (var i = 0; i < boxes.length; i++) statuses[boxes[i].value] = boxes[i].checked;
    var q = search.value.trim().toLowerCase();
    var n = 0;
    articles.forEach(function (a, i) {
      var ok = statuses[a.dataset.status] === true &&
        (tool.value === "" || a.dataset.tool === tool.value) &&
        (!mismatch.checked || a.dataset.mismatch === "true") &&
        (q === "" || texts[i].indexOf(q) >= 0);
      a.hidden = !ok;
      if (ok) n++;
    });
    runs.forEach(function (r) { r.hidden = r.querySelector("article.inv:not([hidden])") === null; });
    shown.textContent = "showing " + n + " of " + articles.length + " invocations";
  }
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  form.hidden = false;
  apply();
  document.documentElement.setAttribute("data-ready", "true");
})();
