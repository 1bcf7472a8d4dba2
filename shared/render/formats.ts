/** The output formats of every adapter (CLI `-o`, API `?output=` / Accept), in one place. */
import { ValidationError } from "../errors.ts";

export const OUTPUT_FORMATS = ["table", "json", "yaml"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export type StructuredFormat = Exclude<OutputFormat, "table">;

export function isOutputFormat(value: unknown): value is OutputFormat {
  return typeof value === "string" && (OUTPUT_FORMATS as readonly string[]).includes(value);
}

/** A CLI `-o` value; undefined means the table. A bad one is refused in Helm's (pflag's) words. */
export function parseOutputFormat(value: string | undefined): OutputFormat {
  if (value === undefined) return "table";
  if (!isOutputFormat(value)) {
    throw new ValidationError(
      `invalid argument ${JSON.stringify(value)} for "-o, --output" flag: invalid format type`,
      "InvalidOutput",
    );
  }
  return value;
}
