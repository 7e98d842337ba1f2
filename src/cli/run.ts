import { main } from './main.ts';
import { relaunchForBulk } from './relaunch.ts';

// Entry point of the compiled build (dist/cli/run.js), which `npm start` runs.
if (!relaunchForBulk()) await main(process.argv);
