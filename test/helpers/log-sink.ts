import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The test-wide log sink. When PARLEY_TEST_LOG_DIR is set (`npm test` sets it), every app the
 * helpers start logs at debug level into `<dir>/<pid>.log`, and the secrets the helpers make
 * (passwords, API keys, session tokens) are listed in `<dir>/<pid>.secrets`. After the run,
 * scripts/scan-test-logs.mjs looks for every listed secret and every secret-shaped token in
 * all those logs.
 */
const DIR = process.env.PARLEY_TEST_LOG_DIR;

let logFd: number | undefined;
let secretsFd: number | undefined;

function open(kind: 'log' | 'secrets'): number {
  return openSync(join(DIR!, `${process.pid}.${kind}`), 'a');
}

process.once('exit', () => {
  if (logFd !== undefined) closeSync(logFd);
  if (secretsFd !== undefined) closeSync(secretsFd);
});

/** Whether the suite's logs are collected and scanned. */
export const collectingLogs = DIR !== undefined && DIR !== '';

/** A stream for the app's logger, or undefined when logs are not collected. */
export function testLogStream(): { write(line: string): void } | undefined {
  if (!collectingLogs) return undefined;
  return {
    write(line: string) {
      logFd ??= open('log');
      writeSync(logFd, line.endsWith('\n') ? line : `${line}\n`);
    },
  };
}

/** Lists a secret the scan must never find in a log. */
export function recordSecret(value: string): void {
  if (!collectingLogs || value.length < 8) return;
  secretsFd ??= open('secrets');
  writeSync(secretsFd, `${value}\n`);
}
