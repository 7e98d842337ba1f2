import { main } from './main.ts';

// Entry point of the compiled build (dist/cli/run.js), which `npm start` runs.
await main(process.argv);
