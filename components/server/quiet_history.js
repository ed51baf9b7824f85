// A change of the address that nobody asked for, such as the first run of a view writing the
// question it opened on (`?qid=0`), replaces the page's history entry instead of adding one.
// Added, Back would lead to the same view without it, whose first run writes it again: the
// reader would press Back twice to leave. The first key or pointer press ends this; from then
// on every change is the reader's own and adds an entry as before. Another view's address (a
// new path) always adds one.
(function () {
  var push = history.pushState;
  function quiet(state, title, url) {
    var to = url == null ? location.href : new URL(String(url), location.href).href;
    if (new URL(to).pathname !== location.pathname) return push.apply(history, arguments);
    return history.replaceState(state, title, url);
  }
  function done() {
    if (history.pushState === quiet) history.pushState = push;
    removeEventListener("pointerdown", done, true);
    removeEventListener("keydown", done, true);
  }
  history.pushState = quiet;
  addEventListener("pointerdown", done, true);
  addEventListener("keydown", done, true);
})();
