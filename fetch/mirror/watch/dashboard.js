// gofer's dashboard: redraw the changing part of the page on each stats
// line the server sends. Without this script the page refreshes itself.
//
// A redraw never takes a control from under the person: while a button
// or field of the page is pressed (pointer down) or has the focus, the
// redraw waits, and the newest one is drawn once it is let go, after the
// click it ends has reached its button. A click whose press and release
// fell on two drawings of a button would otherwise press nothing, and a
// button reached with the keyboard would lose the focus each second.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || !window.EventSource) { return; }
  var part = "/?part=live" + (location.search.indexOf("token=") >= 0 ? "&" + location.search.slice(1) : "");
  var busy = false, again = false, leaving = false, pressed = false, waiting = null;
  // A form being sent leads to a new page: no redraw replaces it meanwhile.
  document.addEventListener("submit", function () { leaving = true; });
  live.addEventListener("pointerdown", function () { pressed = true; });
  function release() {
    if (!pressed) { return; }
    pressed = false;
    // After the click this release makes, which comes next in the same
    // task: the button must still be there to take it.
    setTimeout(function () { draw(null); }, 0);
  }
  document.addEventListener("pointerup", release, true);
  document.addEventListener("pointercancel", release, true);
  live.addEventListener("focusout", function () { setTimeout(function () { draw(null); }, 0); });
  function held() {
    var a = document.activeElement;
    return pressed || (a && live.contains(a) && (a.tagName === "INPUT" || a.tagName === "BUTTON"));
  }
  // draw puts html (or, with null, the redraw that waited) on the page,
  // or keeps it waiting while a control is held.
  function draw(html) {
    if (html !== null) { waiting = html; }
    if (leaving || waiting === null || held()) { return; }
    live.innerHTML = waiting;
    waiting = null;
  }
  function redraw() {
    if (leaving) { return; }
    if (busy) { again = true; return; }
    busy = true;
    fetch(part, { cache: "no-store" }).then(function (r) { return r.text(); }).then(draw).catch(function () {}).then(function () {
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
