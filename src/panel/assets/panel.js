// Light enhancement only: every page works without this file.
/* global document */
'use strict';
document.addEventListener('DOMContentLoaded', function () {
  // Arrow keys step through an audit trail (outside form fields).
  var prev = document.querySelector('a[data-step="prev"]');
  var next = document.querySelector('a[data-step="next"]');
  if (prev || next) {
    document.addEventListener('keydown', function (e) {
      var t = e.target && e.target.tagName;
      if (t === 'INPUT' || t === 'SELECT' || t === 'TEXTAREA' || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === 'ArrowLeft' && prev) prev.click();
      if (e.key === 'ArrowRight' && next) next.click();
    });
  }
});
