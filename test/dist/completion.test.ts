/**
 * `completion bash|zsh|fish` is generated from the commands' own flag definitions: every command module's
 * `run.spec` (defineCommand / defineCommandGroup). A flag added to a command appears without touching the
 * generator; bash's behaviour is exercised in a real bash (also in package.test.ts, from the installed command).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { commandNames } from "../../bin/lib/commands.ts";
import { completionScript, completionTree } from "../../bin/lib/completion.ts";
import { defineCommand, defineCommandGroup } from "../../bin/lib/define-command.ts";
import { bashCompletion, runCli } from "../support/cli.ts";

test("every command file is offered, with its flags, verbs and subcommands", async () => {
  const bash = await runCli(["completion", "bash"], {});
  assert.equal(bash.code, 0, bash.stderr);
  const offered = /compgen -W "([^"]+)" -- "\$cur"\)\)\n\s+return/.exec(bash.stdout)?.[1].split(" ");
  assert.deepEqual(offered, commandNames());
  assert.ok(offered?.includes("remote") && offered.includes("push") && offered.includes("completion"));

  const fish = (await runCli(["completion", "fish"], {})).stdout;
  assert.match(fish, /^complete -c helm-status -n '__fish_seen_subcommand_from status' -l no-drift$/m);
  assert.match(fish, /^complete -c helm-status -n '__fish_seen_subcommand_from status' -l namespace -s n -r$/m);
  assert.match(
    fish,
    /^complete -c helm-status -n '__fish_seen_subcommand_from remote; and not __fish_seen_subcommand_from status list history snapshots drift health' -f -a "status list history snapshots drift health"$/m,
  );
  assert.match(
    fish,
    /^complete -c helm-status -n '__fish_seen_subcommand_from remote; and __fish_seen_subcommand_from status' -l kube-context -r$/m,
  );

  const zsh = (await runCli(["completion", "zsh"], {})).stdout;
  assert.match(zsh, /^#compdef helm-status$/m);
  assert.match(zsh, /^ {8}manifest\) opts=\(--cluster --namespace -n --revision --help -h --debug --kube-context\);/m);
  assert.match(zsh, /^ {4}snapshots\) opts=\(.*\); values=\(.*\); verbs=\(show diff\) ;;$/m);
  assert.match(zsh, /compdef _helm_status helm-status/);

  const wrong = await runCli(["completion", "tcsh"], {});
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /^Error: completion needs one shell: bash, zsh, fish \(not "tcsh"\)/);
});

test("a new command's flags are completed with no change to the generator", async () => {
  const noop = async () => 0;
  const deploy = defineCommand({
    help: "",
    options: { wait: { type: "boolean" }, timeout: { type: "string", short: "t" } },
    run: noop,
  });
  const group = defineCommandGroup({ name: "team", help: "", commands: { add: deploy } });
  const tree = await completionTree(["deploy", "team"], async (name) => ({ run: name === "deploy" ? deploy : group }));
  const script = completionScript("bash", "helm-status", tree);
  const complete = (words: string[]) => bashCompletion(script, words);
  assert.equal(complete(["helm-status", "de"]), "deploy");
  assert.equal(complete(["helm-status", "deploy", "--"]), "--wait --timeout --help --debug --kube-context");
  assert.equal(complete(["helm-status", "team", ""]), "add");
  assert.equal(complete(["helm-status", "team", "add", "--w"]), "--wait");
  assert.equal(complete(["helm-status", "deploy", "-t", ""]), "", "a flag's value is not completed as a flag");
});
