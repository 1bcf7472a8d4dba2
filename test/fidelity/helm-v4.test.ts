/**
 * Helm fidelity (issue #13) against the real helm 4.1.4: helm installs, upgrades, fails and
 * uninstalls releases on the simulated EKS; kubectl exports helm's release Secrets; the CLI
 * imports them into DynamoDB Local; then `helm list|history|status|get manifest` and this
 * product's CLI (and API) are compared byte for byte, after the documented differences only
 * (README "Differences from Helm").
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { apiDepsFromEnv } from "../../functions/api/deps.ts";
import { createApiHandler } from "../../functions/api/handler.ts";
import type { SimulatedEks } from "../../local/sim/index.ts";
import { parseManifest } from "../../shared/manifest/manifest.ts";
import { renderStructured } from "../../shared/render/index.ts";
import { bodyJson, bodyText, httpApiEvent, lambdaContext, RecordingLogger, RecordingMetrics } from "../api/support.ts";
import { type Run, runCli } from "../support/cli.ts";
import { ADDED_KEYS } from "../support/helm-compare.ts";
import { type HelmStack, startHelmStack } from "../support/helm-stack.ts";
import { helmPath, kubectlPath, kubeToolsEnv } from "../support/kube-tools.ts";
import { completeTestPod } from "../support/test-pods.ts";

const exec = promisify(execFile);
const helm = await helmPath();
const kubectl = await kubectlPath();
const TABLE = "fidelity";
const CLUSTER = "fid";
/** The simulated cluster's clock stands still, so AGE cells are the same for helm and for us whenever each reads. */
const FROZEN = new Date();

let stack: HelmStack | undefined;
let sim: SimulatedEks;
let home: string;
let chart: string;
let kubeconfig: string;
let cliEnv: NodeJS.ProcessEnv;
let api: ReturnType<typeof createApiHandler>;
let apiDeps: ReturnType<typeof apiDepsFromEnv> | undefined;

const LONG_119 = `Upgrade "demo" failed: context deadline exceeded while waiting for Deployment default/demo to become ready (1 of 3)`;
const LONG_299 = `${"A failed upgrade keeps its whole reason in the description: ".repeat(4)}and this one runs on past two hundred and ninety characters, to be sure the column is never cut at sixty!`;
const MULTI_LINE = "Upgrade failed:\n  resource one is not ready\n  resource two is not ready";

function helmEnv(): NodeJS.ProcessEnv {
  return kubeToolsEnv(home, kubeconfig);
}

async function runHelm(args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await exec(helm!, args, { env: helmEnv(), timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

async function helmOk(args: string[]): Promise<string> {
  const run = await runHelm(args);
  assert.equal(run.code, 0, `helm ${args.join(" ")}: ${run.stderr}`);
  return run.stdout;
}

/** The product's CLI in this process: the same command modules and error reporting as bin/cli.ts. */
const cli = (args: string[], stdin = "") => runCli(args, cliEnv, { stdin });

async function cliOk(args: string[]): Promise<string> {
  const run = await cli(args);
  assert.equal(run.code, 0, `cli ${args.join(" ")}: ${run.stderr}`);
  return run.stdout;
}

const callApi = (target: string) => api(httpApiEvent("GET", target), lambdaContext());

/**
 * Every helm-vs-product comparison goes through here: `ours` must equal `theirs` after the documented
 * differences (`normalize`, when given); the tally counts how many were byte-equal as printed.
 */
const tally = { comparisons: 0, byteEqual: 0 };
function sameAsHelm(ours: string, theirs: string, label: string, normalize?: (text: string) => string): void {
  tally.comparisons++;
  if (ours === theirs) tally.byteEqual++;
  assert.equal(normalize ? normalize(ours) : ours, theirs, label);
}

before(async () => {
  if (!helm || !kubectl) return;
  stack = await startHelmStack({ helm, cluster: CLUSTER, table: TABLE, prefix: "fidelity-", now: () => FROZEN });
  ({ sim, home, kubeconfig, chart, cliEnv } = stack);
  // Values and data that read as other types under YAML 1.1, and a line long enough to fold.
  await writeFile(
    join(chart, "templates", "yamlish.yaml"),
    [
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata:",
      "  name: {{ .Release.Name }}-yamlish",
      "  annotations:",
      '    helm.sh/resource-policy: "keep"',
      "data:",
      '  bool: "yes"',
      '  on: "on"',
      '  date: "2026-01-01"',
      '  hex: "0x1F"',
      '  time: "12:30"',
      '  empty: ""',
      `  long: "${"a long value that goes past the eighty columns of the emitter ".repeat(3)}"`,
      '  multi: "first line\\nsecond line\\n"',
      "",
    ].join("\n"),
  );
  await helmOk(["install", "demo", chart, "--description", MULTI_LINE]);
  await helmOk(["upgrade", "demo", chart, "--description", LONG_119]);
  await helmOk(["upgrade", "demo", chart, "--description", LONG_299]);
  await helmOk(["upgrade", "demo", chart, "--description", "yes"]);
  await helmOk(["install", "other", chart, "-n", "team", "--create-namespace"]);
  await helmOk(["install", "labeled", chart, "--labels", "team=a,tier=web"]);
  await helmOk(["install", "gone", chart]);
  await helmOk(["uninstall", "gone", "--keep-history"]);
  await helmOk(["install", "bad", chart]);
  const broken = join(home, "broken");
  await exec("cp", ["-r", chart, broken]);
  await writeFile(
    join(broken, "templates", "elsewhere.yaml"),
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: elsewhere\n  namespace: no-such-namespace\ndata: {a: b}\n",
  );
  assert.notEqual((await runHelm(["upgrade", "bad", broken])).code, 0, "the upgrade fails: status failed");

  await installIssue24Releases();

  // The SDK's default chain (the API's DynamoDB and EKS clients) reads these from the process.
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: sim.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: sim.credentials.secretAccessKey,
  });
  // What a user does: kubectl get secrets -A -l owner=helm -o json | cli import - --cluster fid
  const { stdout: secrets } = await exec(kubectl!, ["get", "secrets", "-A", "-l", "owner=helm", "-o", "json"], {
    env: helmEnv(),
    maxBuffer: 64 * 1024 * 1024,
  });
  const imported = await cli(["import", "-", "--cluster", CLUSTER], secrets);
  assert.equal(imported.code, 0, imported.stderr);
  apiDeps = apiDepsFromEnv(cliEnv, { telemetry: { logger: new RecordingLogger(), metrics: new RecordingMetrics() } });
  api = createApiHandler(apiDeps);
});

const fixture = (name: string) => readFile(new URL(`../fixtures/yaml11/${name}`, import.meta.url), "utf8");
const WIDE_DESCRIPTIONS = [
  "短い\n日本語の説明です\n👍 done",
  "x\ny\nz",
  "a first line that is a little wider\nb",
  "one\n\ntwo after an empty line and then some more text to be long",
  "e\u0301t\u00e9 👨\u200d👩\u200d👧 family",
];

/** Issue #24's releases: YAML 1.1 charts, a failed upgrade over a deployed revision, wide text, hooks, a List. */
async function installIssue24Releases(): Promise<void> {
  // A chart written the YAML 1.1 way (octal modes, bool words, keys `y`/`on`) and a Widget holding the corpus.
  const y11 = join(home, "y11");
  await mkdir(join(y11, "templates"), { recursive: true });
  await mkdir(join(y11, "crds"));
  await writeFile(join(y11, "Chart.yaml"), 'apiVersion: v2\nname: y11\nversion: 0.1.0\nappVersion: "版本🚀1.0"\n');
  await writeFile(join(y11, "crds", "widget.yaml"), await fixture("widget-crd.yaml"));
  await writeFile(join(y11, "templates", "edge.yaml"), await fixture("edge-scalars.yaml"));
  await writeFile(join(y11, "templates", "ordinary.yaml"), await fixture("ordinary.yaml"));
  await helmOk(["install", "y11", y11]);
  // Several multi-line and wide DESCRIPTIONs, none long enough to widen the column past them.
  for (const [i, description] of WIDE_DESCRIPTIONS.entries()) {
    await helmOk([
      i === 0 ? "install" : "upgrade",
      "wide",
      y11,
      "-n",
      "wide",
      "--create-namespace",
      "--description",
      description,
    ]);
  }
  // A deployed revision 1 and a failed upgrade that still changed a ConfigMap (Helm applies before it fails).
  const d2 = join(home, "d2");
  await mkdir(join(d2, "templates"), { recursive: true });
  await writeFile(join(d2, "Chart.yaml"), "apiVersion: v2\nname: d2\nversion: 0.1.0\n");
  await writeFile(
    join(d2, "templates", "cfg.yaml"),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d2-cfg\ndata:\n  level: {{ .Values.level | default "info" | quote }}\n',
  );
  await helmOk(["install", "d2", d2]);
  await writeFile(
    join(d2, "templates", "zz-elsewhere.yaml"),
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d2-elsewhere\n  namespace: no-such-namespace\ndata: {a: b}\n",
  );
  assert.notEqual((await runHelm(["upgrade", "d2", d2, "--set", "level=debug"])).code, 0, "the upgrade fails");
  // kind: List, installed with helm's OpenAPI validation on (the simulator serves /openapi/v2).
  const listed = join(home, "listed");
  await mkdir(join(listed, "templates"), { recursive: true });
  await writeFile(join(listed, "Chart.yaml"), "apiVersion: v2\nname: listed\nversion: 0.1.0\n");
  await writeFile(
    join(listed, "templates", "list.yaml"),
    "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: listed-a}\n  data: {a: b}\n",
  );
  await helmOk(["install", "listed", listed]);
  // helm test with the watch-list informer on; the simulator runs no kubelet, so the test pod is marked done here.
  const testRun = runHelm(["test", "labeled", "--timeout", "30s"]);
  await completeTestPod(sim.cluster(CLUSTER), "default", "labeled-demo-test-connection");
  const tested = await testRun;
  assert.equal(tested.code, 0, tested.stderr);
}

after(async () => {
  await apiDeps?.kube.close();
  await stack?.stop();
});

describe("helm v4.1.4 and this product on the same releases", {
  skip: (!helm || !kubectl) && "no helm/kubectl",
}, () => {
  test("list: every flag, byte for byte", async () => {
    const flagSets = [
      [],
      ["-A"],
      ["-q"],
      ["--short", "-o", "json"],
      ["-q", "-o", "yaml", "-A"],
      ["--deployed"],
      ["--failed"],
      ["--uninstalled"],
      ["--superseded"],
      ["--deployed", "--failed"],
      ["--superseded", "--deployed"],
      ["--pending"],
      ["--uninstalling"],
      ["-f", "o"],
      ["--filter", "^(d|g)"],
      ["-m", "2"],
      ["-m", "2", "--offset", "1"],
      ["--max", "0"],
      ["--offset", "10"],
      ["-d"],
      ["-d", "-r", "-A"],
      ["-r"],
      ["--no-headers"],
      ["-l", "team=a"],
      ["--selector", "status=deployed,team!=a"],
      ["-l", "tier in (web,db)"],
      ["--time-format", "2006-01-02 15:04:05Z0700 Mon Jan _2 .000 PM MST"],
      ["-o", "json"],
      ["-o", "yaml", "-A", "-d"],
      ["--superseded", "-o", "yaml"],
    ];
    for (const flags of flagSets) {
      const expected = await helmOk(["list", ...flags]);
      sameAsHelm(await cliOk(["list", "--cluster", CLUSTER, ...flags]), expected, `list ${flags.join(" ")}`);
    }
  });

  test("history: long and multi-line descriptions whole, -o json|yaml, --max 0, Helm's errors", async () => {
    for (const flags of [
      [],
      ["-o", "json"],
      ["-o", "yaml"],
      ["--max", "2"],
      ["--max", "0"],
      ["--max", "0", "-o", "yaml"],
    ]) {
      const expected = await helmOk(["history", "demo", ...flags]);
      sameAsHelm(
        await cliOk(["history", "demo", "--cluster", CLUSTER, ...flags]),
        expected,
        `history ${flags.join(" ")}`,
      );
    }
    const table = await cliOk(["history", "demo", "--cluster", CLUSTER]);
    assert.ok(table.includes(LONG_299) && table.includes(LONG_119), "no description is cut");
    assert.match(await cliOk(["history", "demo", "--cluster", CLUSTER, "-o", "yaml"]), /description: "yes"/);
    for (const name of ["BAD_NAME", "nope"]) {
      const theirs = await runHelm(["history", name]);
      const ours = await cli(["history", name, "--cluster", CLUSTER]);
      sameAsHelm(ours.stderr, theirs.stderr, `history ${name}`);
      assert.notEqual(ours.code, 0);
    }
  });

  test("status -o yaml: helm's bytes plus the documented additions (YAML 1.1 quoting, folding)", async () => {
    const expected = await helmOk(["status", "demo", "-o", "yaml"]);
    const ours = await cliOk(["status", "demo", "--kubeconfig", kubeconfig, "--cluster", CLUSTER, "-o", "yaml"]);
    sameAsHelm(ours, expected, "status -o yaml", withoutAdditions);
    assert.match(ours, /bool: "yes"/);
    assert.match(ours, /date: "2026-01-01"/);
  });

  test("get manifest and status: revision 0 or less is the latest; helm's final newline", async () => {
    const latest = await helmOk(["get", "manifest", "demo"]);
    sameAsHelm(await cliOk(["get", "manifest", "demo", "--cluster", CLUSTER]), latest, "get manifest");
    for (const revision of [["--revision=0"], ["--revision=-1"], ["--revision", "-1"]]) {
      assert.equal(await helmOk(["get", "manifest", "demo", ...revision]), latest);
      sameAsHelm(await cliOk(["get", "manifest", "demo", "--cluster", CLUSTER, ...revision]), latest, `${revision}`);
    }
    sameAsHelm(
      await cliOk(["get", "manifest", "demo", "--cluster", CLUSTER, "--revision", "2"]),
      await helmOk(["get", "manifest", "demo", "--revision", "2"]),
      "get manifest --revision 2",
    );
    // The API's body is helm's bytes too (Println's final newline).
    for (const format of ["yaml", "table"]) {
      const body = bodyText(
        await callApi(`/clusters/${CLUSTER}/namespaces/default/releases/demo/revisions/0/manifest?output=${format}`),
      );
      sameAsHelm(body, latest, `API manifest ?output=${format}`);
    }
    const status = await cliOk(["status", "demo", "--kubeconfig", kubeconfig, "--cluster", CLUSTER, "--revision=-1"]);
    assert.match(status, /^REVISION: 4$/m);
    const viaApi = bodyText(await callApi(`/clusters/${CLUSTER}/namespaces/default/releases/demo/status?revision=0`));
    assert.match(viaApi, /^REVISION: 4$/m);
    const manifest = bodyJson(
      await callApi(`/clusters/${CLUSTER}/namespaces/default/releases/demo/revisions/0/manifest?output=json`),
    ) as { revision: number };
    assert.equal(manifest.revision, 4);
  });

  test("an uninstalled release (--keep-history): no Failed verdict, only what is still live", async () => {
    const expected = await helmOk(["status", "gone"]);
    const ours = await cliOk(["status", "gone", "--kubeconfig", kubeconfig, "--cluster", CLUSTER]);
    assert.match(
      ours,
      /^HEALTH: Current \(kstatus: uninstalled, 1 of \d+ resources still in the cluster \(kept or left behind\)\)$/m,
    );
    assert.doesNotMatch(ours, /MISSING|Failed/);
    sameAsHelm(ours, expected, "status of an uninstalled release", withoutTextAdditions);
    assert.match(expected, /==> v1\/ConfigMap\nNAME +DATA +AGE\ngone-yamlish /, "helm lists the kept ConfigMap");
  });

  test("the API answers the CLI's documents for list, history and status", async () => {
    for (const format of ["json", "yaml"] as const) {
      const list = await cliOk(["list", "--cluster", CLUSTER, "-A", "-o", format]);
      const listed = bodyJson(await callApi(`/clusters/${CLUSTER}/releases?output=json`)) as { releases: unknown[] };
      assert.equal(renderStructured(listed.releases, format), list);
      const apiYaml = bodyText(await callApi(`/clusters/${CLUSTER}/releases?output=${format}`));
      assert.equal(apiYaml, renderStructured({ releases: listed.releases }, format), "wrapped, same policy");
      const history = await cliOk(["history", "demo", "--cluster", CLUSTER, "-o", format]);
      const api = bodyJson(
        await callApi(`/clusters/${CLUSTER}/namespaces/default/releases/demo/history?output=json`),
      ) as { history: unknown[] };
      assert.equal(renderStructured(api.history, format), history);
    }
    const filtered = await cliOk(["list", "--cluster", CLUSTER, "--deployed", "-f", "o", "-d", "-r", "-o", "json"]);
    const viaApi = bodyJson(
      await callApi(`/clusters/${CLUSTER}/namespaces/default/releases?deployed&filter=o&date&reverse`),
    ) as { releases: unknown[] };
    assert.equal(renderStructured(viaApi.releases, "json"), filtered);
    assert.equal(
      bodyText(await callApi(`/clusters/${CLUSTER}/namespaces/default/releases?output=table&superseded`)),
      await cliOk(["list", "--cluster", CLUSTER, "--superseded"]),
    );
    // status: the same document, only observedAt and the request counters differ between two reads.
    const volatile = (text: string) => text.replace(/"observedAt":"[^"]*"/, "").replace(/"counters":\{[^}]*\}/, "");
    const cliJson = await cliOk(["status", "labeled", "--kubeconfig", kubeconfig, "--cluster", CLUSTER, "-o", "json"]);
    const apiJson = bodyText(
      await callApi(`/clusters/${CLUSTER}/namespaces/default/releases/labeled/status?output=json`),
    );
    assert.equal(volatile(apiJson), volatile(cliJson));
  });

  test("YAML 1.1: the API server holds what our reader reads; no untouched release prints DRIFT", async () => {
    const { stdout } = await exec(kubectl!, ["get", "widget", "edge", "-o", "json"], { env: helmEnv() });
    const stored = JSON.parse(await fixture("edge-scalars.stored.json"));
    assert.deepEqual(JSON.parse(stdout).spec, stored, "the simulator stored helm's JSON as the corpus says");
    const [widget] = parseManifest(await helmOk(["get", "manifest", "y11"])).objects.filter((o) => o.kind === "Widget");
    assert.deepEqual(widget.object.spec, stored, "the stored manifest reads as the API server holds it");
    for (const [name, namespace] of [
      ["demo", "default"],
      ["other", "team"],
      ["labeled", "default"],
      ["y11", "default"],
      ["wide", "wide"],
      ["listed", "default"],
    ]) {
      const args = ["status", name, "-n", namespace, "--kubeconfig", kubeconfig, "--cluster", CLUSTER];
      const text = await cliOk(args);
      assert.doesNotMatch(text, /^DRIFT:/m, `${name}: no DRIFT`);
      const document = JSON.parse(await cliOk([...args, "-o", "json"])) as { drift?: { fields: unknown[] } };
      assert.deepEqual(document.drift?.fields, [], `${name}: drift compared, nothing drifted`);
    }
  });

  test("a deployed revision after a failed upgrade: what Helm's later revision wrote is Helm's", async () => {
    const args = ["status", "d2", "--kubeconfig", kubeconfig, "--cluster", CLUSTER];
    const text = await cliOk([...args, "--revision", "1"]);
    assert.match(text, /^STATUS: deployed$/m);
    assert.match(text, /^DRIFT: 1 field written by Helm's later revision 2$/m);
    assert.match(
      text,
      /^v1\/ConfigMap +d2-cfg +data\.level +info -> debug +helm \(revision 2\) .* Helm's own write: revision 2 \(failed\), after this one$/m,
    );
    assert.doesNotMatch(text, /webhook/);
  });

  test("history: multi-line and wide DESCRIPTIONs cut at the column width like helm's, CLI and API", async () => {
    const expected = await helmOk(["history", "wide", "-n", "wide"]);
    assert.match(expected, /\.\.\. +\n/, "helm cut a cell");
    sameAsHelm(await cliOk(["history", "wide", "-n", "wide", "--cluster", CLUSTER]), expected, "history wide");
    const viaApi = bodyText(await callApi(`/clusters/${CLUSTER}/namespaces/wide/releases/wide/history?output=table`));
    sameAsHelm(viaApi, expected, "API history ?output=table");
    sameAsHelm(
      await cliOk(["list", "-n", "wide", "--cluster", CLUSTER]),
      await helmOk(["list", "-n", "wide"]),
      "wide list",
    );
  });

  test("status -o json after helm test: the hooks' last_run in Helm's key order", async () => {
    const expected = await helmOk(["status", "labeled", "-o", "json"]);
    assert.match(expected, /"last_run":\{"started_at":"[^"]+","completed_at":"[^"]+","phase":"Succeeded"\}/);
    const ours = await cliOk(["status", "labeled", "--kubeconfig", kubeconfig, "--cluster", CLUSTER, "-o", "json"]);
    sameAsHelm(ours, expected, "status -o json", withoutJsonAdditions);
  });

  test("a kind: List release: helm's status text", async () => {
    const expected = await helmOk(["status", "listed"]);
    const ours = await cliOk(["status", "listed", "--kubeconfig", kubeconfig, "--cluster", CLUSTER]);
    sameAsHelm(ours, expected, "status listed", withoutTextAdditions);
  });

  test("list -f is RE2; negative numbers after a flag; Helm's error text", async () => {
    for (const flags of [
      ["-f", "(?i)DEMO"],
      ["-f", "(?U)d.+o"],
      ["-f", "^[[:alpha:]]+$"],
      ["-f", "\\pL"],
      ["-f", "\\Ademo\\z"],
      ["-f", "\\Qdemo\\E"],
      ["-f", "(?P<n>de)mo"],
      ["--max", "-1"],
      ["-m", "-1"],
      ["-A", "-l", "tier>1"],
    ]) {
      sameAsHelm(
        await cliOk(["list", "--cluster", CLUSTER, ...flags]),
        await helmOk(["list", ...flags]),
        `list ${flags}`,
      );
    }
    sameAsHelm(
      await cliOk(["history", "demo", "--cluster", CLUSTER, "--max", "-1"]),
      await helmOk(["history", "demo", "--max", "-1"]),
      "history --max -1",
    );
    const firstLine = (text: string) => `${text.split("\n")[0]}\n`;
    for (const [args, ours] of [
      [
        ["list", "-f", "["],
        ["list", "--cluster", CLUSTER, "-f", "["],
      ],
      [
        ["list", "-f", "(?=a)"],
        ["list", "--cluster", CLUSTER, "-f", "(?=a)"],
      ],
      [
        ["list", "-l", "=="],
        ["list", "--cluster", CLUSTER, "-l", "=="],
      ],
      [
        ["list", "-l", "a b"],
        ["list", "--cluster", CLUSTER, "-l", "a b"],
      ],
      [
        ["list", "-o", "wide"],
        ["list", "--cluster", CLUSTER, "-o", "wide"],
      ],
      [
        ["get", "manifest", "BAD_NAME"],
        ["get", "manifest", "BAD_NAME", "--cluster", CLUSTER],
      ],
      [
        ["status", "BAD_NAME"],
        ["status", "BAD_NAME", "--kubeconfig", kubeconfig, "--cluster", CLUSTER],
      ],
      [["history"], ["history", "--cluster", CLUSTER]],
      [
        ["history", "a", "b"],
        ["history", "a", "b", "--cluster", CLUSTER],
      ],
    ]) {
      const theirs = await runHelm(args);
      const run = await cli(ours);
      assert.notEqual(theirs.code, 0);
      assert.notEqual(run.code, 0);
      // One `Error:` line (README "Differences from Helm": no cobra usage block after it).
      sameAsHelm(run.stderr, firstLine(theirs.stderr), `${args.join(" ")}`);
    }
    const status = bodyJson(await callApi(`/clusters/${CLUSTER}/namespaces/default/releases/BAD_NAME/status`)) as {
      error: { message: string };
    };
    const helmStatus = await runHelm(["status", "BAD_NAME"]);
    sameAsHelm(`Error: ${status.error.message}\n`, helmStatus.stderr, "API status message");
  });

  // Last: helm 4 itself cannot read this release (it panics on list, history and status).
  test("a release Helm stored without info: kept by import; status says Tiller's 'release info is missing'", async () => {
    const payload = {
      name: "noinfo",
      namespace: "default",
      version: 1,
      chart: { metadata: { name: "demo", version: "0.1.0" } },
      manifest: "",
    };
    const release = gzipSync(Buffer.from(JSON.stringify(payload)), { level: 9 }).toString("base64");
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      type: "helm.sh/release.v1",
      metadata: {
        name: "sh.helm.release.v1.noinfo.v1",
        namespace: "default",
        labels: { name: "noinfo", owner: "helm", status: "deployed", version: "1" },
      },
      data: { release: Buffer.from(release).toString("base64") },
    };
    const imported = await cli(["import", "-", "--cluster", CLUSTER], JSON.stringify(secret));
    assert.equal(imported.code, 0, imported.stderr);
    const status = await cli(["status", "noinfo", "--kubeconfig", kubeconfig, "--cluster", CLUSTER]);
    assert.equal(status.stderr, "Error: release info is missing\n");
    assert.equal(status.code, 1);
    const api = await callApi(`/clusters/${CLUSTER}/namespaces/default/releases/noinfo/status`);
    // The API reports stored-data faults by code (the error mapping words them for operators).
    assert.equal((bodyJson(api) as { error: { code: string } }).error.code, "ReleaseInfoMissing");
    assert.match(
      await cliOk(["list", "--cluster", CLUSTER, "-f", "noinfo"]),
      /^noinfo\tdefault {2}\t1 {7}\t- {6}\tunknown/m,
    );
    sim.cluster(CLUSTER).apply([secret]);
    const theirs = await runHelm(["status", "noinfo"]);
    assert.notEqual(theirs.code, 0);
    assert.match(theirs.stderr, /nil pointer dereference/, "helm 4.1.4 panics on it");
  });
});

/** Our status text minus the product's own lines (HEALTH, STORED, and DRIFT with its section: docs/drift.md). */
function withoutTextAdditions(text: string): string {
  return text
    .replace(/^HEALTH: .*\n/m, "")
    .replace(/^STORED: .*\n/m, "")
    .replace(/^DRIFT: .*\n/m, "")
    .replace(/^==> (HEALTH|DRIFT|WHY|EVENTS)\n(?:.+\n)*\n/gm, "");
}

/** Our `-o json` document minus the product's own top-level keys, re-encoded as Go's encoder writes it. */

function withoutJsonAdditions(json: string): string {
  const document = JSON.parse(json) as Record<string, unknown>;
  for (const key of ADDED_KEYS) delete document[key];
  return renderStructured(document, "json");
}

/** Our status document minus the product's own top-level keys (documented additions). */
function withoutAdditions(yaml: string): string {
  const added = new Set(ADDED_KEYS);
  const out: string[] = [];
  let skipping = false;
  for (const line of yaml.split("\n")) {
    const key = /^([A-Za-z_]+):/.exec(line)?.[1];
    if (key !== undefined) skipping = added.has(key);
    if (!skipping) out.push(line);
  }
  return out.join("\n");
}

after(() => {
  if (tally.comparisons > 0) {
    process.stdout.write(
      `# fidelity: ${tally.comparisons} helm-vs-product comparisons, ${tally.byteEqual} byte-equal as printed, ` +
        `${tally.comparisons - tally.byteEqual} equal after the documented differences\n`,
    );
  }
});

test("README and docs/status.md list the differences from Helm in the same table", async () => {
  const { readFileSync } = await import("node:fs");
  const table = (file: string) => {
    const text = readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
    const start = text.indexOf("| area | this product | helm v4.1.4 | why |");
    assert.ok(start >= 0, `${file} has the table`);
    return text.slice(start, text.indexOf("\n\n", start));
  };
  assert.equal(table("README.md"), table("docs/status.md"));
});
