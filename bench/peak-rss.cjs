// Preloaded by bench/scale.ts into the commands it measures: reports the process's own peak
// resident set size and CPU time on stderr as it exits.
process.on('exit', () => {
  const u = process.resourceUsage();
  process.stderr.write(`peak-rss-kb ${u.maxRSS} cpu-us ${u.userCPUTime + u.systemCPUTime}\n`);
});
