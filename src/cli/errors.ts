/** Exit codes of the CLI: documented in docs/ops.md and the README. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** A failure the CLI reports in one line of words, without a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Wrong use of the command line (unknown command or option, invalid value): exit code 2. */
export const usageError = (message: string) => new CliError(message, EXIT.usage);
