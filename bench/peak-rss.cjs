// Preloaded by bench/scale.ts into the commands it measures: reports the process's own peak
// resident set size on stderr as it exits.
process.on('exit', () => {
  process.stderr.write(`peak-rss-kb ${process.resourceUsage().maxRSS}\n`);
});
