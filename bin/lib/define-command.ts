import { type ParseArgsConfig, parseArgs } from "node:util";
import { ValidationError } from "../../shared/errors.ts";
import { helpText } from "./commands.ts";
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
  /** Words the command understands as its first positional (`snapshots show|diff`), for shell completion. */
  verbs?: readonly string[];
  run(parsed: Parsed<O, P>, io: CliIO): Promise<number>;
}

/** What a command module exports as `run`; `spec` describes its flags for shell completion. */
export type CommandRun = ((args: string[], io: CliIO) => Promise<number>) & { spec?: CommandShape };

/** A command's flags and verbs, as completion reads them (bin/lib/completion.ts). */
export interface CommandShape {
  options: Options;
  verbs?: readonly string[];
  /** Named subcommands (`get manifest`), each with its own shape. */
  subcommands?: Record<string, CommandShape>;
}

/**
 * The preamble every command shares: strict `parseArgs` of its flags plus -h/--help, and the help text
 * on stdout when asked. A flag the parser refuses throws ERR_PARSE_ARGS_*, which bin/lib/run.ts reports
 * as a usage error (exit 2).
 */
export function defineCommand<const O extends Options, const P extends boolean = false>(
  spec: CommandSpec<O, P>,
): CommandRun {
  const run: CommandRun = async (args, io) => {
    const parsed = parseArgs({
      args: withNegativeValues(args, spec.options),
      options: { ...spec.options, help: { type: "boolean", short: "h" } } as WithHelp<O>,
      strict: true,
      allowPositionals: (spec.positionals ?? false) as P,
    });
    if ((parsed.values as { help?: boolean }).help) {
      io.stdout.write(helpText(spec.help, io.env));
      return 0;
    }
    return spec.run(parsed, io);
  };
  run.spec = { options: { ...spec.options, help: { type: "boolean", short: "h" } }, verbs: spec.verbs };
  return run;
}

/**
 * A command made of named subcommands (`remote status`, `remote list`): the first word picks one, the rest are
 * its arguments. `help` is printed for -h/--help (exit 0) or no subcommand (exit 2).
 */
export function defineCommandGroup(spec: {
  name: string;
  help: string;
  commands: Record<string, CommandRun>;
}): CommandRun {
  const run: CommandRun = async (args, io) => {
    const [sub, ...rest] = args;
    const help = helpText(spec.help, io.env);
    if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
      (sub === undefined ? io.stderr : io.stdout).write(help);
      return sub === undefined ? 2 : 0;
    }
    const command = Object.hasOwn(spec.commands, sub) ? spec.commands[sub] : undefined;
    if (!command) {
      throw new ValidationError(
        `unknown ${spec.name} subcommand ${JSON.stringify(sub)} (one of: ${Object.keys(spec.commands).join(", ")})`,
        "InvalidArguments",
      );
    }
    return command(rest, io);
  };
  run.spec = {
    options: { help: { type: "boolean", short: "h" } },
    subcommands: Object.fromEntries(
      Object.entries(spec.commands).map(([name, command]) => [name, command.spec ?? { options: {} }]),
    ),
  };
  return run;
}

/**
 * Helm (pflag) takes `--revision -1`, `--max -1`, `-m -1`: a negative number after a flag that needs a value is
 * that value. node:util's parseArgs refuses it as ambiguous, so such pairs are joined as `--name=-1` first.
 */
function withNegativeValues(args: readonly string[], options: Options): string[] {
  const takesValue = new Map<string, string>();
  for (const [name, option] of Object.entries(options)) {
    if (option.type !== "string") continue;
    takesValue.set(`--${name}`, name);
    if (option.short) takesValue.set(`-${option.short}`, name);
  }
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--") return [...out, ...args.slice(i)];
    const name = takesValue.get(args[i]);
    if (name !== undefined && /^-\d+$/.test(args[i + 1] ?? "")) {
      out.push(`--${name}=${args[i + 1]}`);
      i++;
    } else out.push(args[i]);
  }
  return out;
}
