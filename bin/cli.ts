#!/usr/bin/env node
/**
 * `helm-status COMMAND ...` (bin/helm-status.js) or `npm run --silent cli -- COMMAND ...`: one entry point, one
 * file per command in bin/commands/ (a command `get manifest` lives in get.ts). Commands are loaded lazily so
 * `token` does not pay for loading the DynamoDB client, and so adding a command never means editing this file.
 */
import { fileURLToPath } from "node:url";
import { commandFile, programName, setCliEntry } from "./lib/commands.ts";
import { runCommand } from "./lib/run.ts";

setCliEntry(fileURLToPath(import.meta.url));
const [name, ...args] = process.argv.slice(2);

const usage = `usage: ${programName()} COMMAND [ARGS]

commands:
  init                                   create the releases and snapshots tables (idempotent)
  import [FILE|-] [--cluster C]          import Helm release Secrets/ConfigMaps (JSON)
  list [--cluster C] [-n NS | -A]        list releases (latest revision of each)
  history RELEASE -n NS                  revision history of a release
  get manifest RELEASE -n NS             the stored manifest of a revision
  status RELEASE -n NS                   live status of a release
  sync [--cluster C] [-n NS | -A]        bring the store up to date with the cluster's Helm storage
  audit [--cluster C]                    snapshot every deployed release once (status history)
  snapshots RELEASE -n NS                the status history of a release (show ID, diff ID [ID])
  fleet [--health H]                     latest audited health of every release, worst first
  reliability [RELEASE -n NS]            availability, incidents, MTTR, deploys from the status history
  token --cluster C                      an EKS token as ExecCredential JSON
  kubeconfig --cluster C                 a kubeconfig using the token command
  push RELEASE -n NS                     send a release's latest revision to the deployed API (CI, after helm upgrade)
  remote status|list|history|...         ask the deployed API (SigV4), what 'helm fleet' runs
  mcp [--endpoint URL]                   the deployed API's MCP tools over stdio, for AI assistants (SigV4)
  completion bash|zsh|fish               shell completion for the commands and their flags

Run COMMAND --help for its flags.`;

if (!name || name === "--help" || name === "-h" || name === "help") {
  process.stdout.write(`${usage}\n`);
  process.exit(name ? 0 : 2);
}

const file = commandFile(name);
if (!file) {
  process.stderr.write(`Error: unknown command "${name}"\n\n${usage}\n`);
  process.exit(2);
}

process.exitCode = await runCommand(file, args);
