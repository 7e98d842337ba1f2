import { relaunchForBulk } from './relaunch.ts';

// Entry point of the compiled build (dist/cli/run.js), which `npm start` runs. The commands are
// loaded only by the process that runs one: a bulk command's first process only starts another.
if (!relaunchForBulk()) {
  const { main } = await import('./main.ts');
  await main(process.argv);
}
