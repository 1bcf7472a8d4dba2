/**
 * Helm fidelity, the bytes (issue #39), against the real helm 4.1.4 on the simulated EKS: strings that look like
 * YAML 1.1 words or numbers (values, keys, descriptions, app versions) quoted as go-yaml quotes them; Go's byte
 * order for integer-like map keys in JSON; helm history's 256 revisions by default, CLI and API.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { apiDepsFromEnv } from "../../functions/api/deps.ts";
import { createApiHandler } from "../../functions/api/handler.ts";
import { bodyJson, bodyText, httpApiEvent, lambdaContext, RecordingLogger, RecordingMetrics } from "../api/support.ts";
import {
  type HelmCompare,
  helmCompare,
  withoutJsonAdditions,
  withoutTextAdditions,
  withoutYamlAdditions,
} from "../support/helm-compare.ts";
import { type HelmStack, startHelmStack } from "../support/helm-stack.ts";
import { helmPath, kubectlPath, kubeToolsEnv } from "../support/kube-tools.ts";
import { installBytesReleases } from "./bytes-releases.ts";

const exec = promisify(execFile);
const helm = await helmPath();
const kubectl = await kubectlPath();
const CLUSTER = "bytes";
const FROZEN = new Date();
/** Past helm history's default --max (256) and the store's default page (100). */
const MANY_REVISIONS = 260;

let stack: HelmStack | undefined;
let h: HelmCompare;
let api: ReturnType<typeof createApiHandler>;
let apiDeps: ReturnType<typeof apiDepsFromEnv> | undefined;

before(async () => {
  if (!helm || !kubectl) return;
  stack = await startHelmStack({ helm, cluster: CLUSTER, table: "bytes", prefix: "helm-bytes-", now: () => FROZEN });
  h = helmCompare(helm, stack);
  await installBytesReleases(h, stack, CLUSTER, MANY_REVISIONS);

  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: stack.sim.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: stack.sim.credentials.secretAccessKey,
  });
  const { stdout: secrets } = await exec(kubectl, ["get", "secrets", "-A", "-l", "owner=helm", "-o", "json"], {
    env: kubeToolsEnv(stack.home, stack.kubeconfig),
    maxBuffer: 64 * 1024 * 1024,
  });
  const imported = await h.cli(["import", "-", "--cluster", CLUSTER], secrets);
  assert.equal(imported.code, 0, imported.stderr);
  apiDeps = apiDepsFromEnv(stack.cliEnv, {
    telemetry: { logger: new RecordingLogger(), metrics: new RecordingMetrics() },
  });
  api = createApiHandler(apiDeps);
});

after(async () => {
  await apiDeps?.kube.close();
  await stack?.stop();
  if (h) process.stdout.write(h.summary());
});

const callApi = (target: string) => api(httpApiEvent("GET", target), lambdaContext());
const status = (name: string, ...flags: string[]) => [
  "status",
  name,
  "--kubeconfig",
  stack!.kubeconfig,
  "--cluster",
  CLUSTER,
  ...flags,
];

describe("helm v4.1.4's bytes (issue #39)", { skip: (!helm || !kubectl) && "no helm/kubectl" }, () => {
  test("-o yaml: every YAML 1.1-looking string quoted as go-yaml quotes it (values, keys, descriptions)", async () => {
    const theirs = await h.helmOk(["status", "words", "-o", "yaml"]);
    assert.match(theirs, /^ {8}v\d+: "false"$/m, "go-yaml quotes false");
    h.sameAsHelm(await h.cliOk(status("words", "-o", "yaml")), theirs, "status -o yaml", withoutYamlAdditions);
    for (const flags of [
      ["-o", "yaml"],
      ["-o", "yaml", "--max", "1"],
    ]) {
      const expected = await h.helmOk(["history", "words", ...flags]);
      h.sameAsHelm(await h.cliOk(["history", "words", "--cluster", CLUSTER, ...flags]), expected, `history ${flags}`);
    }
    const list = await h.helmOk(["list", "-f", "words", "-o", "yaml"]);
    assert.match(list, /app_version: "FALSE"/);
    h.sameAsHelm(await h.cliOk(["list", "--cluster", CLUSTER, "-f", "words", "-o", "yaml"]), list, "list -o yaml");
  });

  test("-o json: integer-like map keys in Go's byte order", async () => {
    const theirs = await h.helmOk(["status", "words", "-o", "json"]);
    assert.match(theirs, /"data":\{"-1":"3","01":"4","1":"5","10":"2","10a":"8","2":"0","9":"1","A":"7","b":"6"\}/);
    const ours = await h.cliOk(status("words", "-o", "json"));
    h.sameAsHelm(ours, theirs, "status -o json", withoutJsonAdditions);
    assert.ok(ours.includes('"data":{"-1":"3","01":"4","1":"5","10":"2",'), "as printed, not only after re-encoding");
  });

  test("history: 256 revisions by default, as helm shows them, from the CLI and the API", async () => {
    const theirs = await h.helmOk(["history", "many"]);
    assert.equal(theirs.trimEnd().split("\n").length, 257, "helm: the header and 256 revisions");
    h.sameAsHelm(await h.cliOk(["history", "many", "--cluster", CLUSTER]), theirs, "history (table)");
    const path = `/clusters/${CLUSTER}/namespaces/default/releases/many/history`;
    h.sameAsHelm(bodyText(await callApi(`${path}?output=table`)), theirs, "API history ?output=table");
    const document = bodyJson(await callApi(path)) as { history: { revision: number }[]; cursor?: string };
    assert.equal(document.history.length, 256);
    assert.equal(document.history[0].revision, MANY_REVISIONS - 255);
    assert.ok(document.cursor, "the JSON document leads on to the older revisions");
  });

  test("a PriorityClass (scheduling.k8s.io): installed, and its status as helm prints it", async () => {
    const theirs = await h.helmOk(["status", "prio"]);
    assert.match(
      theirs,
      /==> v1\/PriorityClass\nNAME +VALUE +GLOBAL-DEFAULT +AGE +PREEMPTIONPOLICY\nprio-high +1000 +false /,
    );
    h.sameAsHelm(await h.cliOk(status("prio")), theirs, "status prio", withoutTextAdditions);
  });

  test("flags as pflag parses them, and its error texts", async () => {
    const { stdout: contexts } = await exec(kubectl!, ["config", "get-contexts", "-o", "name"], {
      env: kubeToolsEnv(stack!.home, stack!.kubeconfig),
    });
    const context = contexts.split("\n")[0];
    assert.ok(context, "the simulator's kubeconfig names a context");
    for (const [theirs, ours] of [
      [
        ["list", "-n=default"],
        ["list", "-n=default"],
      ],
      [
        ["list", "-o=yaml", "-m=2"],
        ["list", "-o=yaml", "-m=2"],
      ],
      [
        ["list", "-m", "0x2"],
        ["list", "-m", "0x2"],
      ],
      [
        ["list", "--max=0b10", "--offset", "0_1"],
        ["list", "--max=0b10", "--offset", "0_1"],
      ],
      [
        ["list", "-m", "1_0", "-dr"],
        ["list", "-m", "1_0", "-dr"],
      ],
      [
        ["list", "--max", "010", "--deployed=false"],
        ["list", "--max", "010", "--deployed=false"],
      ],
      [
        ["list", "-f", "(?P<a>wo)(?P<a>rds)|(?P<b>ma)(?P<b>ny)"],
        ["list", "-f", "(?P<a>wo)(?P<a>rds)|(?P<b>ma)(?P<b>ny)"],
      ],
      [
        ["list", "--debug"],
        ["list", "--debug"],
      ],
      [
        ["history", "many", "--max", "0x3"],
        ["history", "many", "--max", "0x3"],
      ],
      [
        ["history", "--", "words"],
        ["history", "--", "words"],
      ],
    ]) {
      // --cluster right after the command: after `--` every word is an argument.
      const [command, ...rest] = ours;
      h.sameAsHelm(await h.cliOk([command, "--cluster", CLUSTER, ...rest]), await h.helmOk(theirs), theirs.join(" "));
    }
    h.sameAsHelm(
      await h.cliOk(status("prio", "--kube-context", context, "--debug")),
      await h.helmOk(["status", "prio", "--kube-context", context, "--debug"]),
      "status --kube-context --debug",
      withoutTextAdditions,
    );
    // A documented difference (README "Differences from Helm"): helm lists nothing, we say the name is invalid.
    assert.equal(await h.helmOk(["list", "-n", "Bad_NS"]), await h.helmOk(["list", "-n", "nothing-here"]));
    const badNamespace = await h.cli(["list", "-n", "Bad_NS", "--cluster", CLUSTER]);
    assert.deepEqual([badNamespace.code, badNamespace.stderr.split(":")[0]], [2, "Error"]);
    assert.match(badNamespace.stderr, /^Error: invalid namespace "Bad_NS": a lowercase RFC 1123 label/);
    const firstLine = (text: string) => `${text.split("\n")[0]}\n`;
    for (const args of [
      ["list", "--all"],
      ["list", "-x"],
      ["list", "-dx"],
      ["list", "-m"],
      ["list", "--max"],
      ["list", "-m", "2.0"],
      ["list", "--offset", "1__0"],
      ["list", "--max", "99999999999999999999"],
      ["list", "--date=maybe"],
      ["list", "---max"],
      ["history", "words", "--max", "2.0"],
      ["history", "words", "--max", "08"],
      ["status", "words", "--revision", "0x"],
    ]) {
      const theirs = await h.runHelm(args);
      const run = await h.cli([args[0], "--cluster", CLUSTER, ...args.slice(1)]);
      assert.notEqual(theirs.code, 0, args.join(" "));
      assert.equal(run.code, 2, args.join(" "));
      h.sameAsHelm(run.stderr, firstLine(theirs.stderr), args.join(" "));
    }
  });

  test("column widths as go-runewidth v0.0.9 counts them (combining marks, flags, U+FE0F, keycaps)", async () => {
    const theirs = await h.helmOk(["history", "marks"]);
    h.sameAsHelm(await h.cliOk(["history", "marks", "--cluster", CLUSTER]), theirs, "history marks");
    const viaApi = bodyText(
      await callApi(`/clusters/${CLUSTER}/namespaces/default/releases/marks/history?output=table`),
    );
    h.sameAsHelm(viaApi, theirs, "API history marks");
  });
});
