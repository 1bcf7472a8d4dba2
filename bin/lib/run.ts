import { isDomainError } from "../../shared/errors.ts";

/** What every command module exports. */
export interface CliCommand {
  /** Returns the process exit code. Throw a DomainError for user errors. */
  run(args: string[], io: CliIO): Promise<number>;
}

export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export const processIO: CliIO = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
};

/**
 * Runs one command module and turns errors into one line on stderr: a user error
 * (a DomainError, or a flag the parser refused) never prints a stack trace.
 * HELM_STATUS_DEBUG=1 prints the stack for bugs.
 */
export async function runCommand(file: string, args: string[], io: CliIO = processIO): Promise<number> {
  try {
    const command = (await import(file)) as CliCommand;
    return await command.run(args, io);
  } catch (error) {
    return reportError(error, io);
  }
}

/** Errors of a command run with helm's `--debug`: reported with their stack, as HELM_STATUS_DEBUG=1 does. */
export const debugRequested = new WeakSet<object>();

export function reportError(error: unknown, io: CliIO): number {
  if (isDomainError(error)) {
    io.stderr.write(`Error: ${error.message}\n`);
    return error.kind === "validation" ? 2 : 1;
  }
  const code = (error as { code?: string })?.code;
  if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS")) {
    io.stderr.write(`Error: ${(error as Error).message}\n`);
    return 2;
  }
  io.stderr.write(`Error: ${(error as Error)?.message ?? String(error)}\n`);
  if (io.env.HELM_STATUS_DEBUG || (typeof error === "object" && error && debugRequested.has(error)))
    io.stderr.write(`${(error as Error)?.stack}\n`);
  return 1;
}
