import { isDomainError, ValidationError } from "../../shared/errors.ts";
import { helpText } from "./commands.ts";
import { type FlagOptions, type ParsedFlags, parseFlags } from "./flags.ts";
import type { CliIO } from "./run.ts";
import { debugRequested } from "./run.ts";

type Options = FlagOptions;
/**
 * Flags every command takes: -h/--help, and helm's global `--debug` (stack traces of unexpected errors, like
 * HELM_STATUS_DEBUG=1) and `--kube-context` (the kubeconfig context where a command reads a kubeconfig; accepted
 * and unused elsewhere, so a helm command line can be pasted as it is).
 */
const COMMON_FLAGS = {
  help: { type: "boolean", short: "h" },
  debug: { type: "boolean" },
  "kube-context": { type: "string" },
} as const;
type WithCommon<O extends Options> = O & typeof COMMON_FLAGS;
type Parsed<O extends Options> = ParsedFlags<WithCommon<O>>;

export interface CommandSpec<O extends Options, P extends boolean> {
  /** Printed on stdout for -h/--help (exit 0). */
  help: string;
  /** The command's flags; -h/--help, --debug and --kube-context are added. */
  options: O;
  /** Whether the command takes positional arguments (RELEASE, FILE); they are refused otherwise. */
  positionals?: P;
  /** Words the command understands as its first positional (`snapshots show|diff`), for shell completion. */
  verbs?: readonly string[];
  run(parsed: Parsed<O>, io: CliIO): Promise<number>;
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
 * The preamble every command shares: its flags parsed as helm's pflag parses them (bin/lib/flags.ts) plus the
 * common ones, and the help text on stdout when asked. A flag the parser refuses is a ValidationError with
 * pflag's text, which bin/lib/run.ts reports as a usage error (exit 2).
 */
export function defineCommand<const O extends Options, const P extends boolean = false>(
  spec: CommandSpec<O, P>,
): CommandRun {
  // A command's own flag of the same name (remote's --kube-context) keeps its meaning.
  const common = Object.entries(COMMON_FLAGS).filter(([name]) => !Object.hasOwn(spec.options, name));
  const options = { ...spec.options, ...Object.fromEntries(common) } as WithCommon<O>;
  const run: CommandRun = async (args, io) => {
    const parsed = parseFlags(args, options, spec.positionals ?? false);
    const values = parsed.values as Record<string, unknown>;
    if (values.help) {
      io.stdout.write(helpText(spec.help, io.env));
      return 0;
    }
    // helm's --kube-context is this product's --context where a command has one.
    if (values["kube-context"] !== undefined && Object.hasOwn(spec.options, "context")) {
      values.context ??= values["kube-context"];
    }
    try {
      return await spec.run(parsed, io);
    } catch (error) {
      if (values.debug && !isDomainError(error) && typeof error === "object" && error) debugRequested.add(error);
      throw error;
    }
  };
  run.spec = { options, verbs: spec.verbs };
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
