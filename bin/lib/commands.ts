/**
 * Where the CLI's commands are: one module per command in `commands/` beside the entry point. From a checkout
 * that is bin/cli.ts and bin/commands/*.ts; from the npm tarball the bundle's dist/cli/cli.mjs and
 * dist/cli/commands/*.mjs (bin/lib/bundle.ts keeps that layout). The entry records itself (`setCliEntry`), so
 * code that must start the CLI again (the kubeconfig's exec plugin) or list its commands (completion) finds
 * whichever of the two is running; in-process runs (tests) default to the checkout's.
 */
import { existsSync, readdirSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";

let entry = fileURLToPath(new URL("../cli.ts", import.meta.url));

export function setCliEntry(path: string): void {
  entry = path;
}

/** The running CLI's entry point, to start it again with `process.execPath`. */
export function cliEntry(): string {
  return entry;
}

/** How help texts name the program: `helm-status` when started through it, else the npm script. */
export function programName(env: NodeJS.ProcessEnv = process.env): string {
  return env.HELM_STATUS_PROGRAM?.trim() || "npm run --silent cli --";
}

/**
 * A help text as the user called the command: the npm script's name replaced by the program's, and for
 * `helm fleet` (helm-plugin/fleet.sh) `remote VERB` and `push` as the plugin's own verbs.
 */
export function helpText(help: string, env: NodeJS.ProcessEnv = process.env): string {
  const program = programName(env);
  const text = program === "helm fleet" ? help.replaceAll("npm run --silent cli -- remote", program) : help;
  return text.replaceAll("npm run --silent cli --", program);
}

const COMMAND_NAME = /^[a-z][a-z-]*$/;

/** The module of command `name`, or undefined when there is no such command. */
export function commandFile(name: string): string | undefined {
  if (!COMMAND_NAME.test(name)) return undefined;
  const file = join(dirname(entry), "commands", `${name}${extname(entry)}`);
  return existsSync(file) ? file : undefined;
}

/** Every command's name, sorted. */
export function commandNames(): string[] {
  const ext = extname(entry);
  return readdirSync(join(dirname(entry), "commands"))
    .filter((file) => file.endsWith(ext))
    .map((file) => file.slice(0, -ext.length))
    .filter((name) => COMMAND_NAME.test(name))
    .sort();
}
