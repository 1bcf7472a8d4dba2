/** The simulator CLI's streams and its one-line error report, its own so the simulator stands alone. */
import { SimulatorError } from "./errors.ts";

export interface SimIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

export const processIO: SimIO = { stdout: process.stdout, stderr: process.stderr, env: process.env };

/**
 * One line on stderr: exit 2 for a usage mistake (a SimulatorError of kind validation, a flag the parser
 * refused), 1 otherwise; SIM_DEBUG=1 adds the stack of an unexpected error.
 */
export function reportError(error: unknown, io: SimIO): number {
  const message = (error as Error)?.message ?? String(error);
  io.stderr.write(`Error: ${message}\n`);
  if (error instanceof SimulatorError) return error.kind === "validation" ? 2 : 1;
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS")) return 2;
  if (io.env.SIM_DEBUG) io.stderr.write(`${(error as Error)?.stack}\n`);
  return 1;
}
