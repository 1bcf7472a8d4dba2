import { type ParseArgsConfig, parseArgs } from "node:util";
import type { CliIO } from "./run.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;
type WithHelp<O extends Options> = O & { help: { type: "boolean"; short: "h" } };
type Parsed<O extends Options, P extends boolean> = ReturnType<
  typeof parseArgs<{ args: string[]; options: WithHelp<O>; strict: true; allowPositionals: P }>
>;

export interface CommandSpec<O extends Options, P extends boolean> {
  /** Printed on stdout for -h/--help (exit 0). */
  help: string;
  /** The command's flags; -h/--help is added. */
  options: O;
  /** Whether the command takes positional arguments (RELEASE, FILE); strict parsing refuses them otherwise. */
  positionals?: P;
  run(parsed: Parsed<O, P>, io: CliIO): Promise<number>;
}

/** What a command module exports as `run`. */
export type CommandRun = (args: string[], io: CliIO) => Promise<number>;

/**
 * The preamble every command shares: strict `parseArgs` of its flags plus -h/--help, and the help text
 * on stdout when asked. A flag the parser refuses throws ERR_PARSE_ARGS_*, which bin/lib/run.ts reports
 * as a usage error (exit 2).
 */
export function defineCommand<const O extends Options, const P extends boolean = false>(
  spec: CommandSpec<O, P>,
): CommandRun {
  return async (args, io) => {
    const parsed = parseArgs({
      args,
      options: { ...spec.options, help: { type: "boolean", short: "h" } } as WithHelp<O>,
      strict: true,
      allowPositionals: (spec.positionals ?? false) as P,
    });
    if ((parsed.values as { help?: boolean }).help) {
      io.stdout.write(spec.help);
      return 0;
    }
    return spec.run(parsed, io);
  };
}
