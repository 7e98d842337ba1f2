import { relaunchForBulk } from './relaunch.ts';

// Entry point of the compiled build (dist/cli/run.js), which `npm start` runs. The commands are
// loaded only by the process that runs one: a bulk command's first process only starts another.
if (!relaunchForBulk()) {
  // A reader that stops early (`| head`) closes the pipe: the command ends there, quietly, as the
  // shell's own tools do, rather than with a stack trace of the failed write.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(0);
  });
  const { main } = await import('./main.ts');
  await main(process.argv);
}
