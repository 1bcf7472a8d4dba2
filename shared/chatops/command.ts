/**
 * The chat command language, shared by Slack (`/helm status api -n shop`) and
 * Teams (`@helm status api -n shop`): a verb, at most one RELEASE, and flags
 * spelled as the CLI spells them. Parsing is pure and total: anything it does
 * not understand comes back as a usage answer saying what is wrong, never an
 * exception, so a typo is answered at once instead of being queued.
 */
import { isDomainError } from "../errors.ts";
import {
  revisionOrLatest,
  validateClusterName,
  validateNamespace,
  validateReleaseName,
} from "../release/validation.ts";

interface Common {
  cluster?: string;
  namespace?: string;
  /** Answer in the channel instead of only to the caller. */
  public: boolean;
}

export type ChatCommand =
  | ({ verb: "status"; release: string; revision?: number } & Common)
  | ({ verb: "history"; release: string; max?: number } & Common)
  | ({ verb: "list"; allNamespaces: boolean } & Common)
  | ({ verb: "timeline"; release: string } & Common)
  | ({ verb: "fleet" } & Common)
  | ({ verb: "reliability"; release?: string; since?: string } & Common)
  | { verb: "help"; public: boolean };

export type ChatVerb = ChatCommand["verb"];

export type ParseResult = { ok: true; command: ChatCommand } | { ok: false; error: string; usage: string };

export interface ParseOptions {
  /** The slash command or bot name users type, for the usage text (default `/helm`). */
  prefix?: string;
  /** Offer `fleet`, `timeline` and `reliability` (they read the status-history snapshots). */
  snapshots?: boolean;
}

/** Largest page a chat answer asks for; a chat message is not the place for more. */
export const MAX_CHAT_PAGE = 50;

const FLAGS: Record<string, { name: keyof Flags; value: boolean; verbs: ChatVerb[] }> = {
  "-n": { name: "namespace", value: true, verbs: ["status", "history", "list", "timeline", "reliability"] },
  "--namespace": { name: "namespace", value: true, verbs: ["status", "history", "list", "timeline", "reliability"] },
  "--cluster": {
    name: "cluster",
    value: true,
    verbs: ["status", "history", "list", "timeline", "fleet", "reliability"],
  },
  "--since": { name: "since", value: true, verbs: ["reliability"] },
  "--revision": { name: "revision", value: true, verbs: ["status"] },
  "--max": { name: "max", value: true, verbs: ["history"] },
  "-A": { name: "allNamespaces", value: false, verbs: ["list"] },
  "--all-namespaces": { name: "allNamespaces", value: false, verbs: ["list"] },
  "--public": {
    name: "public",
    value: false,
    verbs: ["status", "history", "list", "timeline", "fleet", "reliability", "help"],
  },
};

interface Flags {
  namespace?: string;
  cluster?: string;
  revision?: string;
  max?: string;
  since?: string;
  allNamespaces?: boolean;
  public?: boolean;
}

export function usageText(options: ParseOptions = {}): string {
  const p = options.prefix ?? "/helm";
  const lines = [
    `${p} status RELEASE [-n NAMESPACE] [--cluster CLUSTER] [--revision N] [--public]`,
    `${p} history RELEASE [-n NAMESPACE] [--cluster CLUSTER] [--max N] [--public]`,
    `${p} list [--cluster CLUSTER] [-n NAMESPACE | -A] [--public]`,
  ];
  if (options.snapshots) {
    lines.push(`${p} fleet [--cluster CLUSTER] [--public]          what is unhealthy now`);
    lines.push(`${p} timeline RELEASE [-n NAMESPACE] [--cluster CLUSTER] [--public]`);
    lines.push(`${p} reliability [RELEASE] [-n NAMESPACE] [--cluster CLUSTER] [--since 30d] [--public]`);
  }
  lines.push(`${p} help`);
  return `${lines.join("\n")}\n\nAnswers are visible only to you unless --public is given; the channel's default cluster and namespace apply when omitted.`;
}

export function parseChatCommand(text: string, options: ParseOptions = {}): ParseResult {
  const fail = (error: string): ParseResult => ({ ok: false, error, usage: usageText(options) });
  const words = tokenize(text);
  if (words.length === 0) return { ok: true, command: { verb: "help", public: false } };
  const verb = words[0].toLowerCase();
  const verbs: ChatVerb[] = [
    "status",
    "history",
    "list",
    "help",
    ...(options.snapshots ? ["fleet", "timeline", "reliability"] : []),
  ] as ChatVerb[];
  if (!(verbs as string[]).includes(verb)) {
    return fail(`unknown command "${printable(words[0])}": use one of ${verbs.join(", ")}`);
  }
  const flags: Flags = {};
  const positionals: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (!word.startsWith("-") || word === "-") {
      positionals.push(word);
      continue;
    }
    const eq = word.indexOf("=");
    const name = eq > 0 ? word.slice(0, eq) : word;
    const spec = FLAGS[name];
    if (!spec) return fail(`unknown flag "${printable(name)}" for ${verb}`);
    if (!spec.verbs.includes(verb as ChatVerb)) return fail(`${verb} does not take ${name}`);
    if (flags[spec.name] !== undefined) return fail(`${name} is given twice`);
    if (!spec.value) {
      if (eq > 0) return fail(`${name} takes no value`);
      (flags as Record<string, unknown>)[spec.name] = true;
      continue;
    }
    const value = eq > 0 ? word.slice(eq + 1) : words[++i];
    if (value === undefined || value === "" || (eq < 0 && value.startsWith("-"))) return fail(`${name} needs a value`);
    (flags as Record<string, unknown>)[spec.name] = value;
  }
  try {
    return { ok: true, command: build(verb as ChatVerb, positionals, flags) };
  } catch (error) {
    if (isDomainError(error) || error instanceof UsageProblem) return fail(error.message);
    throw error;
  }
}

class UsageProblem extends Error {}

function build(verb: ChatVerb, positionals: string[], flags: Flags): ChatCommand {
  const common: Common = {
    public: flags.public === true,
    ...(flags.cluster !== undefined ? { cluster: validateClusterName(flags.cluster) } : {}),
    ...(flags.namespace !== undefined ? { namespace: validateNamespace(flags.namespace) } : {}),
  };
  const takesRelease = verb === "status" || verb === "history" || verb === "timeline";
  if (takesRelease && positionals.length === 0) throw new UsageProblem(`${verb} needs a RELEASE name`);
  const extra = positionals.slice(takesRelease || verb === "reliability" ? 1 : 0);
  if (extra.length > 0) throw new UsageProblem(`unexpected argument "${printable(extra[0])}"`);
  switch (verb) {
    case "help":
      return { verb, public: common.public };
    case "fleet":
      return { verb, ...common };
    case "list":
      if (flags.allNamespaces && common.namespace) throw new UsageProblem("give -n or -A, not both");
      return { verb, ...common, allNamespaces: flags.allNamespaces === true };
    case "status": {
      const release = validateReleaseName(positionals[0]);
      // Helm's rule, as everywhere: a revision of 0 or less is the latest.
      const revision = revisionOrLatest(flags.revision);
      return revision === undefined ? { verb, release, ...common } : { verb, release, ...common, revision };
    }
    case "history": {
      const release = validateReleaseName(positionals[0]);
      if (flags.max === undefined) return { verb, release, ...common };
      if (!/^\d{1,4}$/.test(flags.max) || Number(flags.max) < 1 || Number(flags.max) > MAX_CHAT_PAGE) {
        throw new UsageProblem(
          `--max must be a whole number from 1 to ${MAX_CHAT_PAGE}, not "${printable(flags.max)}"`,
        );
      }
      return { verb, release, ...common, max: Number(flags.max) };
    }
    case "timeline":
      return { verb, release: validateReleaseName(positionals[0]), ...common };
    case "reliability": {
      if (flags.since !== undefined && !/^\d{1,4}[mhd]$|^\d{4}-\d{2}-\d{2}/.test(flags.since)) {
        throw new UsageProblem(`--since takes a duration ago (30m, 6h, 7d) or a date, not "${printable(flags.since)}"`);
      }
      return {
        verb,
        ...common,
        ...(positionals[0] !== undefined ? { release: validateReleaseName(positionals[0]) } : {}),
        ...(flags.since !== undefined ? { since: flags.since } : {}),
      };
    }
  }
}

/**
 * Words of the text. Chat clients "smarten" what people type: an em or en dash
 * for `--`/`-`, non-breaking spaces, smart quotes around a name; all undone here.
 */
export function tokenize(text: string): string[] {
  return text
    .replace(/[\u2014]/g, "--")
    .replace(/[\u2013\u2212]/g, "-")
    .replace(/[\u2018\u2019\u201c\u201d"'`]/g, "")
    .split(/[\s\u00a0]+/)
    .filter((word) => word.length > 0);
}

/** The command as one canonical line, for logs and the "checking…" acknowledgement. */
export function commandLine(command: ChatCommand): string {
  const parts: string[] = [command.verb];
  if ("release" in command && command.release !== undefined) parts.push(command.release);
  if ("namespace" in command && command.namespace) parts.push("-n", command.namespace);
  if ("allNamespaces" in command && command.allNamespaces) parts.push("-A");
  if ("cluster" in command && command.cluster) parts.push("--cluster", command.cluster);
  if ("revision" in command && command.revision !== undefined) parts.push("--revision", String(command.revision));
  if ("max" in command && command.max !== undefined) parts.push("--max", String(command.max));
  if ("since" in command && command.since !== undefined) parts.push("--since", command.since);
  if (command.public) parts.push("--public");
  return parts.join(" ");
}

/** User text quoted back safely: short, no control characters, no mrkdwn/HTML specials. */
function printable(text: string): string {
  const cut = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  let out = "";
  for (const char of cut) {
    const code = char.codePointAt(0)!;
    out += code < 32 || code === 127 || "<>&*_~`|".includes(char) ? "?" : char;
  }
  return out;
}
