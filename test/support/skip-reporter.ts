import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Lists every skipped test with its reason at the end of a run, so that a run on the embedded
 * database (or without a KurrentDB server) says plainly what it did not exercise.
 */
export default class SkipReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const m of testModules) {
      for (const t of m.children.allTests()) {
        const r = t.result();
        if (r.state !== 'skipped') continue;
        const note = r.note ? ` (${r.note})` : '';
        lines.push(`  - ${relative(process.cwd(), m.moduleId)} > ${t.fullName}${note}`);
      }
    }
    if (lines.length === 0) return;
    console.log(`\nSkipped tests (${lines.length}), each with the reason in its name or note:`);
    for (const l of lines) console.log(l);
  }
}
