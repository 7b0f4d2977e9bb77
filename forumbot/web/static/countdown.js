// Live countdown of drafts' auto-publication: elements with data-seconds tick down.
(function () {
  "use strict";
  var started = Date.now();
  var items = Array.prototype.slice.call(document.querySelectorAll(".countdown[data-seconds]"));
  if (!items.length) { return; }
  var en = document.documentElement.lang === "en";
  function text(s) {
    if (s <= 0) { return en ? "Auto-publish due now" : "Publication automatique au prochain passage"; }
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    var d = h ? h + " h " + pad(m) + " min" : (m ? m + " min " + pad(r) + " s" : r + " s");
    return (en ? "Auto-publish in " : "Publication automatique dans ") + d;
  }
  setInterval(function () {
    var gone = Math.floor((Date.now() - started) / 1000);
    items.forEach(function (el) {
      el.textContent = text(parseInt(el.getAttribute("data-seconds"), 10) - gone);
    });
  }, 1000);
})();
