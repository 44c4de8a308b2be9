/**
 * An error the user can act on: printed as one paragraph (no stack trace), exit status 2 for
 * bad usage and 1 for bad input.
 */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

/** Bad flags or arguments: exit status 2, and the message points to --help. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
  }
}
