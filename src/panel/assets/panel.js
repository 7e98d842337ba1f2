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

  // The calendar's bars: left and right to the bar before and after, up and down to the line above and below.
  var cal = document.querySelector('.cal');
  if (cal) {
    cal.addEventListener('keydown', function (e) {
      var bar = e.target;
      if (!bar.classList || !bar.classList.contains('bar')) return;
      var bars = Array.prototype.slice.call(cal.querySelectorAll('a.bar'));
      var lines = Array.prototype.slice.call(cal.querySelectorAll('.lines > li')).filter(function (l) {
        return l.querySelector('a.bar');
      });
      var target = null;
      if (e.key === 'ArrowRight') target = bars[bars.indexOf(bar) + 1];
      if (e.key === 'ArrowLeft') target = bars[bars.indexOf(bar) - 1];
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        var line = lines[lines.indexOf(bar.closest('li')) + (e.key === 'ArrowDown' ? 1 : -1)];
        target = line && line.querySelector('a.bar');
      }
      if (target) {
        e.preventDefault();
        target.focus();
      }
    });
  }
});
