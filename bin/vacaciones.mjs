#!/usr/bin/env node
// The sources are TypeScript run through tsx's loader, so there is no build step to forget.
import { register } from 'tsx/esm/api';

register();
const { relaunchForBulk } = await import('../src/cli/relaunch.ts');
if (!relaunchForBulk()) {
  const { main } = await import('../src/cli/main.ts');
  await main(process.argv);
}
