import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The embedded database's directory is opened by one process at a time: a second PGlite over the
 * same files (a CLI command beside a running server) corrupts them. Whoever opens it first leaves
 * its process id in a lock file beside them; another process that finds a live one refuses with
 * one line naming it, and takes over a lock whose process is gone (a crash, a kill -9).
 */

/** A refusal to open the directory another live process holds; its message is one line. */
export class DataDirInUse extends Error {
  override name = 'DataDirInUse';
}

export const LOCK_FILE = 'vacaciones.lock';

interface Holder {
  pid: number;
  command: string;
  since: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(file: string): Holder | null {
  try {
    const h = JSON.parse(readFileSync(file, 'utf8')) as Holder;
    return Number.isInteger(h.pid) ? h : null;
  } catch {
    return null;
  }
}

/** What a person recognises the holder by: its command line, without the node executable's path. */
const commandLine = () =>
  process.argv
    .slice(1)
    .map((a) => a.replace(/^.*[\\/](bin|dist[\\/]cli)[\\/]/, ''))
    .join(' ')
    .slice(0, 120);

/**
 * Takes the directory for this process, or throws DataDirInUse naming the live process that
 * holds it. Returns the release, to call once the database is closed.
 */
export function lockDataDir(dir: string, shown = dir): () => void {
  const file = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, JSON.stringify({ pid: process.pid, command: commandLine(), since: new Date().toISOString() } satisfies Holder));
      closeSync(fd);
      const release = () => {
        process.off('exit', release);
        if (holderOf(file)?.pid === process.pid) unlinkSync(file);
      };
      // A process that ends without closing the database (an uncaught error) still lets go.
      process.on('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = holderOf(file);
    if (holder && holder.pid !== process.pid && alive(holder.pid)) {
      throw new DataDirInUse(
        `the embedded database in ${shown} is open in process ${holder.pid} (${holder.command || 'vacaciones'}, since ${holder.since}): ` +
          'stop that process first, or set DATABASE_URL so that the server and the command line share a PostgreSQL server',
      );
    }
    // Left by a process that is gone: taken over.
    try {
      unlinkSync(file);
    } catch {
      // Another process took it over first; the next attempt says who.
    }
  }
  throw new DataDirInUse(`the embedded database in ${shown} is being opened by another process: try again`);
}
