import { openSync, closeSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite serves one process per data directory; a second process would work on its own copy
 * and silently lose writes. The lock file holds the owner's pid; a stale lock (dead pid) is
 * taken over. Returns the release function.
 */
export function acquireDataDirLock(dataDir: string): () => void {
  const path = join(dataDir, 'parley.lock');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && processAlive(owner)) {
        throw new DataDirLockedError(
          `The data directory ${dataDir} is in use by process ${owner} (a running Parley server). ` +
            'Stop it first, or use the running server (e.g. its API) instead.',
        );
      }
      unlinkSync(path);
    }
  }
  throw new DataDirLockedError(`Could not lock the data directory ${dataDir}`);
}
