#!/usr/bin/env node
// The sources are TypeScript run through tsx's loader, so there is no build step to forget; the
// entry point is the one the compiled build runs (src/cli/run.ts).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/run.ts');
