// Preloaded (node --import) into a CLI process whose memory a test bounds: samples the heap in
// use and the resident set every few milliseconds and, at exit, writes the peaks (bytes) as JSON
// to the file PEAK_MEMORY_FILE names.
import { writeFileSync } from 'node:fs';
import { setInterval } from 'node:timers';

const file = process.env.PEAK_MEMORY_FILE;
if (file) {
  const peak = { heapUsed: 0, rss: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
    peak.rss = Math.max(peak.rss, m.rss);
  };
  setInterval(sample, 5).unref();
  process.on('exit', () => {
    sample();
    writeFileSync(file, JSON.stringify(peak));
  });
}
