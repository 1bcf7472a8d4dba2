#!/usr/bin/env node
/**
 * `helm-status`: the installed command (package.json "bin"). Plain JavaScript that any Node parses, so it can
 * say what is wrong even on an old one. It runs the CLI in this process when this Node is new enough (no second
 * start), else on a Node found for it:
 *   - from the npm tarball, the bundle dist/cli/cli.mjs that `npm pack` builds (bin/lib/bundle.ts), which has no
 *     runtime dependencies and runs on Node 20, 22 and 24 (package.json "engines");
 *   - in a checkout, bin/cli.ts (TypeScript, run by Node 24's type stripping); an older Node re-runs it on
 *     HELM_STATUS_NODE, or on the `node` package of the checkout's node_modules (the devDependency `npm ci`
 *     installs), forwarding arguments, stdio, signals and exit code.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// Node resolves the symlinks npm makes (node_modules/.bin, a global prefix, `npm install -g .`) for the main module.
const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const source = join(here, "cli.ts");
const checkout = existsSync(source);
const entry = checkout ? source : join(root, "dist", "cli", "cli.mjs");
// The sources need type stripping (Node 24); the bundle is built for Node 20 (bin/lib/bundle.ts).
const NEEDED_MAJOR = checkout ? 24 : 20;
// Help texts and completion name the command as it was typed.
process.env.HELM_STATUS_PROGRAM ||= "helm-status";

if (Number(process.versions.node.split(".")[0]) >= NEEDED_MAJOR) {
  await import(pathToFileURL(entry).href);
} else {
  const node = process.env.HELM_STATUS_NODE || [join(root, "node_modules", "node", "bin", "node")].find(existsSync);
  if (!node) {
    process.stderr.write(
      `Error: helm-status needs Node ${NEEDED_MAJOR} or newer, and this is Node ${process.versions.node}: ` +
        `install it (e.g. nvm install ${NEEDED_MAJOR}) or set HELM_STATUS_NODE to a Node ${NEEDED_MAJOR} binary\n`,
    );
    process.exit(1);
  }
  const child = spawn(node, [entry, ...process.argv.slice(2)], { stdio: "inherit" });
  const forward = (signal) => child.kill(signal);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, forward);
  child.on("error", (error) => {
    process.stderr.write(`Error: cannot run ${node}: ${error.message}\n`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    if (signal) {
      for (const name of ["SIGINT", "SIGTERM", "SIGHUP"]) process.off(name, forward);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}
