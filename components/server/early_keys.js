// Keys pressed while a triage step loads this view's page, kept until the triage bar's listener
// (components/casebook/triage_keys.js) attaches and applies them. Only while the mark that the
// listener writes as a queue's page unloads is fresh; typed text and shortcuts are not kept.
(function () {
  var mark;
  try {
    mark = JSON.parse(sessionStorage.getItem("__STEP__"));
  } catch (e) {
    return;
  }
  if (!mark || !(Date.now() - mark.at < __FRESH_MS__)) return;
  var keys = (window.__rteEarlyKeys = []);
  document.addEventListener(
    "keydown",
    function (ev) {
      if (window.__rteTriageKeys || !window.__rteEarlyKeys) return;
      if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.isComposing) return;
      var t = ev.target;
      var tag = t && t.tagName;
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
      if (t && t.isContentEditable) return;
      keys.push(ev.key);
    },
    true,
  );
})();
