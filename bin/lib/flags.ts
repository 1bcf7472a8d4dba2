/**
 * Command-line flags as helm parses them (spf13/pflag under cobra), so a helm command line works here unchanged:
 * `--name value` takes the next word whatever it is (`--at -2h`, `--max -1`), `--name=value`, `-n ns`, `-nns`,
 * `-n=ns`, bool shorthands grouped (`-dr`), `--flag=false`, positionals anywhere, `--` ends the flags; integer
 * flags in Go's syntax (`0x2`, `0b10`, `0o7`, `010` octal, `1_000`), and pflag's error texts
 * (`unknown flag: --all`, `invalid argument "2.0" for "--max" flag: strconv.ParseInt: …`).
 */
import { ValidationError } from "../../shared/errors.ts";

export interface FlagOption {
  type: "string" | "boolean";
  short?: string;
  default?: string | boolean;
  /** Every occurrence kept (a list), not only the last. */
  multiple?: boolean;
  /** A Go int flag: parsed like pflag's IntVar (strconv.ParseInt base 0, 64 bits), kept as its decimal text. */
  int?: boolean;
}
export type FlagOptions = Record<string, FlagOption>;

type FlagValue<F extends FlagOption> = F["type"] extends "boolean"
  ? F extends { multiple: true }
    ? boolean[]
    : boolean
  : F extends { multiple: true }
    ? string[]
    : string;

export type FlagValues<O extends FlagOptions> = {
  [K in keyof O]: O[K] extends { default: string | boolean } ? FlagValue<O[K]> : FlagValue<O[K]> | undefined;
};

export interface ParsedFlags<O extends FlagOptions> {
  values: FlagValues<O>;
  positionals: string[];
}

const fail = (message: string) => new ValidationError(message, "InvalidArguments");

/** pflag's FlagSet.Parse with cobra's interspersed positionals. */
export function parseFlags<O extends FlagOptions>(
  args: readonly string[],
  options: O,
  allowPositionals: boolean,
): ParsedFlags<O> {
  const shorts = new Map<string, string>();
  for (const [name, option] of Object.entries(options)) if (option.short) shorts.set(option.short, name);
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  const set = (name: string, value: string) => {
    const option = options[name];
    const parsed = option.type === "boolean" ? parseBool(name, option, value) : checked(name, option, value);
    if (option.multiple) values[name] = [...((values[name] as unknown[] | undefined) ?? []), parsed];
    else values[name] = parsed;
  };
  const rest = [...args];
  while (rest.length > 0) {
    const arg = rest.shift() as string;
    if (arg.length < 2 || arg[0] !== "-") {
      positionals.push(arg);
      continue;
    }
    if (arg === "--") {
      positionals.push(...rest);
      break;
    }
    if (arg[1] === "-") {
      const body = arg.slice(2);
      if (body[0] === "-" || body[0] === "=") throw fail(`bad flag syntax: ${arg}`);
      const eq = body.indexOf("=");
      const name = eq < 0 ? body : body.slice(0, eq);
      if (!Object.hasOwn(options, name)) throw fail(`unknown flag: --${name}`);
      if (eq >= 0) set(name, body.slice(eq + 1));
      else if (options[name].type === "boolean") set(name, "true");
      else if (rest.length > 0) set(name, rest.shift() as string);
      else throw fail(`flag needs an argument: ${arg}`);
      continue;
    }
    // One or more shorthands: each bool takes "true" (or `=value`), a value flag the rest of the word or the next.
    let shorthands = arg.slice(1);
    while (shorthands.length > 0) {
      const c = shorthands[0];
      const name = shorts.get(c);
      if (name === undefined) throw fail(`unknown shorthand flag: '${c}' in -${shorthands}`);
      if (shorthands.length > 2 && shorthands[1] === "=") {
        set(name, shorthands.slice(2));
        shorthands = "";
      } else if (options[name].type === "boolean") {
        set(name, "true");
        shorthands = shorthands.slice(1);
      } else if (shorthands.length > 1) {
        set(name, shorthands.slice(1));
        shorthands = "";
      } else if (rest.length > 0) {
        set(name, rest.shift() as string);
        shorthands = "";
      } else throw fail(`flag needs an argument: '${c}' in -${shorthands}`);
    }
  }
  for (const [name, option] of Object.entries(options)) {
    if (values[name] === undefined && option.default !== undefined) values[name] = option.default;
  }
  if (!allowPositionals && positionals.length > 0) {
    throw fail(`unexpected argument ${JSON.stringify(positionals[0])}: this command takes none`);
  }
  return { values: values as FlagValues<O>, positionals };
}

/** How pflag names a flag in its errors: `-m, --max` when it has a shorthand. */
const flagName = (name: string, option: FlagOption) => (option.short ? `-${option.short}, --${name}` : `--${name}`);

function invalid(name: string, option: FlagOption, value: string, reason: string): ValidationError {
  return fail(`invalid argument ${JSON.stringify(value)} for "${flagName(name, option)}" flag: ${reason}`);
}

/** strconv.ParseBool. */
function parseBool(name: string, option: FlagOption, value: string): boolean {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(value)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(value)) return false;
  throw invalid(name, option, value, `strconv.ParseBool: parsing ${goQuote(value)}: invalid syntax`);
}

function checked(name: string, option: FlagOption, value: string): string {
  if (!option.int) return value;
  const parsed = parseGoInt(value);
  if (typeof parsed === "bigint") return parsed.toString();
  throw invalid(name, option, value, `strconv.ParseInt: parsing ${goQuote(value)}: ${parsed.error}`);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 0, 64): a sign, then a base prefix (`0x`, `0o`, `0b`, or `0` for octal) and digits. */
export function parseGoInt(text: string): bigint | { error: "invalid syntax" | "value out of range" } {
  const syntax = { error: "invalid syntax" } as const;
  const range = { error: "value out of range" } as const;
  if (text === "") return syntax;
  const negative = text[0] === "-";
  const unsigned = text[0] === "+" || text[0] === "-" ? text.slice(1) : text;
  if (unsigned === "") return syntax;
  let base = 10n;
  let digits = unsigned;
  if (unsigned[0] === "0") {
    const prefix = unsigned[1]?.toLowerCase();
    if (unsigned.length >= 3 && (prefix === "b" || prefix === "o" || prefix === "x")) {
      base = prefix === "b" ? 2n : prefix === "o" ? 8n : 16n;
      digits = unsigned.slice(2);
    } else {
      base = 8n;
      digits = unsigned.slice(1);
    }
  }
  let value = 0n;
  let underscores = false;
  for (const c of digits) {
    if (c === "_") {
      underscores = true;
      continue;
    }
    const lower = c.toLowerCase();
    const d =
      c >= "0" && c <= "9"
        ? BigInt(c.charCodeAt(0) - 48)
        : lower >= "a" && lower <= "z"
          ? BigInt(lower.charCodeAt(0) - 87)
          : 99n;
    if (d >= base) return syntax;
    value = value * base + d;
    if (value > 2n ** 64n - 1n) return range;
  }
  if (underscores && !underscoreOK(unsigned)) return syntax;
  const signed = negative ? -value : value;
  return signed < INT64_MIN || signed > INT64_MAX ? range : signed;
}

/** strconv's underscoreOK: `_` only between digits (a base prefix counts as one). */
function underscoreOK(s: string): boolean {
  let saw = "^";
  let i = 0;
  let hex = false;
  if (s.length >= 2 && s[0] === "0" && "bBoOxX".includes(s[1])) {
    i = 2;
    saw = "0";
    hex = s[1] === "x" || s[1] === "X";
  }
  for (; i < s.length; i++) {
    const c = s[i];
    if ((c >= "0" && c <= "9") || (hex && /[a-fA-F]/.test(c))) {
      saw = "0";
      continue;
    }
    if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

/** strconv.Quote for the texts these errors hold (JSON's escapes agree for printable ASCII). */
const goQuote = (text: string) => JSON.stringify(text);
