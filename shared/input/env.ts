/**
 * Reading settings from environment variables, the same way for every area: blank is unset, a document is given
 * inline or as a file. Each area passes `fail`, which builds its own configuration error, so the message names
 * the variable and the error keeps the area's code.
 */
import { readFileSync } from "node:fs";
import { firstLine } from "./values.ts";

export type Env = Record<string, string | undefined>;
export type Fail = (message: string, options?: { cause?: unknown }) => Error;

/** A variable's value without surrounding blanks; undefined when it is unset or blank. */
export function envValue(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * A document given inline (`inlineVariable`) or as a file (`fileVariable`), never both: its text and where it
 * came from (for messages), or undefined when neither is set.
 */
export function inlineOrFile(
  env: Env,
  inlineVariable: string,
  fileVariable: string,
  fail: Fail,
): { text: string; source: string } | undefined {
  const inline = env[inlineVariable]?.trim() ? env[inlineVariable] : undefined;
  const file = env[fileVariable]?.trim() ? env[fileVariable] : undefined;
  if (inline !== undefined && file !== undefined) {
    throw fail(`both ${inlineVariable} and ${fileVariable} are set: set only one of them`);
  }
  if (inline !== undefined) return { text: inline, source: inlineVariable };
  if (file === undefined) return undefined;
  try {
    return { text: readFileSync(file, "utf8"), source: `${fileVariable} ${file}` };
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? firstLine(error);
    throw fail(`${fileVariable} ${file}: cannot read the file (${reason})`, { cause: error });
  }
}
