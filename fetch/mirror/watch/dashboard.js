// gofer's dashboard: redraw the changing part of the page on each stats
// line the server sends. Without this script the page refreshes itself.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || !window.EventSource) { return; }
  var part = "/?part=live" + (location.search.indexOf("token=") >= 0 ? "&" + location.search.slice(1) : "");
  var busy = false, again = false, leaving = false;
  // A form being sent leads to a new page: no redraw replaces it meanwhile.
  document.addEventListener("submit", function () { leaving = true; });
  function redraw() {
    if (leaving) { return; }
    if (busy) { again = true; return; }
    busy = true;
    fetch(part, { cache: "no-store" }).then(function (r) { return r.text(); }).then(function (html) {
      var focused = document.activeElement && live.contains(document.activeElement) && document.activeElement.tagName === "INPUT";
      if (!focused && !leaving) { live.innerHTML = html; }
    }).catch(function () {}).then(function () {
      busy = false;
      if (again) { again = false; redraw(); }
    });
  }
  var es = new EventSource("/api/events");
  es.onmessage = function (m) {
    var ev;
    try { ev = JSON.parse(m.data); } catch (e) { return; }
    if (ev.event === "stats" || ev.event === "end") { redraw(); }
    if (ev.event === "end") { es.close(); document.title = document.title.replace(/^Mirroring/, "Mirrored"); }
  };
})();
