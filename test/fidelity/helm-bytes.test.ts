/**
 * Helm fidelity, the bytes (issue #39), against the real helm 4.1.4 on the simulated EKS: strings that look like
 * YAML 1.1 words or numbers (values, keys, descriptions, app versions) quoted as go-yaml quotes them; Go's byte
 * order for integer-like map keys in JSON; helm history's 256 revisions by default, CLI and API.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { gunzipSync, gzipSync } from "node:zlib";
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

/** Every word go-yaml v2's resolver reads as a bool, null or float, and numbers, dates and near-misses. */
const YAMLISH = [
  ..."y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF".split(" "),
  ..."~ null Null NULL .nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf -.INF".split(" "),
  ..."0 1 -1 +1 08 0644 0o644 0O7 0x1F 0X1f 0b101 -0b101 +0x1 1_000 1__0 _1 1_ 0x 0b 0o".split(" "),
  ..."1.5 .5 -.5 +.5 1. 0. . - + 1e3 1E3 1e+3 1.5e-3 1e 1e400 9223372036854775807 9223372036854775808".split(" "),
  ..."18446744073709551615 18446744073709551616 -9223372036854775809 1:30 -1:30 1:30.5 12:60 190:20:30".split(" "),
  ..."2026-01-01 2026-1-1 2026-02-30 2024-02-29 2026-01-01T00:00:00Z 2026-01-01t10:00:00+01:00".split(" "),
  "2026-01-01 10:00:00",
  ..."<< = nan NaN inf Inf falsey f F yess offset Null~ ~~ true_".split(" "),
];

/** One line each, so the DESCRIPTION column is as wide as the widest of them as go-runewidth measures it. */
const MARKS = [
  "ภาษาไทย ที่มีสระ",
  "हिन्दी में विवरण",
  "தமிழ் விளக்கம்",
  "ភាសាខ្មែរ",
  "مَرْحَبًا بِكُمْ",
  "🇯🇵🇫🇷 flags",
  "❤️ ✔️ ☺️ 1️⃣ #️⃣",
  "e\u0301 a\u0308 \u200d \u00ad x",
  "漢字とかな 한국어",
  "plain",
];

before(async () => {
  if (!helm || !kubectl) return;
  stack = await startHelmStack({ helm, cluster: CLUSTER, table: "bytes", prefix: "helm-bytes-", now: () => FROZEN });
  h = helmCompare(helm, stack);
  const chart = join(stack.home, "words");
  await mkdir(join(chart, "templates"), { recursive: true });
  await writeFile(join(chart, "Chart.yaml"), 'apiVersion: v2\nname: words\nversion: 0.1.0\nappVersion: "FALSE"\n');
  // The live ConfigMap is in `info.resources` of helm status -o json|yaml: the words as data values and keys.
  // Not keys with a leading 0 and more (`08`, `0x1F`) or 19 digits (int64 wraps): go-yaml's key order is not
  // transitive for them (`0O7` < `1` < `08` < `0O7`), so helm prints them in a different order from run to run.
  const keyable = YAMLISH.filter((word) => /^[-._a-zA-Z0-9]+$/.test(word) && !/^0.|[0-9]{19}/.test(word));
  const numbered = ["2", "9", "10", "-1", "01", "1", "b", "A", "10a"];
  const configMap = (name: string, data: [string, string][]) => [
    "---",
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata:",
    `  name: {{ .Release.Name }}-${name}`,
    "data:",
    ...data.map(([key, value]) => `  ${JSON.stringify(key)}: ${JSON.stringify(value)}`),
  ];
  await writeFile(
    join(chart, "templates", "cm.yaml"),
    [
      ...configMap(
        "values",
        YAMLISH.map((word, i) => [`v${i}`, word]),
      ),
      ...configMap(
        "keys",
        keyable.map((word) => [word, "x"]),
      ),
      ...configMap(
        "numbered",
        numbered.map((key, i) => [key, String(i)]),
      ),
      "",
    ].join("\n"),
  );
  await h.helmOk(["install", "words", chart, "--description", "False"]);
  await h.helmOk(["upgrade", "words", chart, "--description", "false"]);
  await h.helmOk(["install", "many", chart]);
  // A built-in group the simulator did not serve: helm could not install this chart.
  const prio = join(stack.home, "prio");
  await mkdir(join(prio, "templates"), { recursive: true });
  await writeFile(join(prio, "Chart.yaml"), "apiVersion: v2\nname: prio\nversion: 0.1.0\n");
  await writeFile(
    join(prio, "templates", "pc.yaml"),
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: {{ .Release.Name }}-high\nvalue: 1000\n",
  );
  await h.helmOk(["install", "prio", prio]);
  // DESCRIPTIONs whose width go-runewidth v0.0.9 counts its own way (combining marks of many scripts, flags, keycaps).
  for (const [i, description] of MARKS.entries()) {
    await h.helmOk([i === 0 ? "install" : "upgrade", "marks", chart, "--description", description]);
  }
  await writeManyRevisions(stack, "many", MANY_REVISIONS);

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
  apiDeps = apiDepsFromEnv(stack.cliEnv, { logger: new RecordingLogger(), metrics: new RecordingMetrics() });
  api = createApiHandler(apiDeps);
});

/** Revisions 2..count of `name` as Helm's storage holds them: copies of revision 1's Secret, the last deployed. */
async function writeManyRevisions(stack: HelmStack, name: string, count: number): Promise<void> {
  const cluster = stack.sim.cluster(CLUSTER);
  const { stdout } = await exec(kubectl!, ["get", "secret", `sh.helm.release.v1.${name}.v1`, "-o", "json"], {
    env: kubeToolsEnv(stack.home, stack.kubeconfig),
  });
  const first = JSON.parse(stdout) as { metadata: { labels: Record<string, string> }; data: { release: string } };
  const release = JSON.parse(
    gunzipSync(Buffer.from(Buffer.from(first.data.release, "base64").toString(), "base64")).toString(),
  );
  const secrets = [];
  for (let version = 1; version <= count; version++) {
    const status = version === count ? "deployed" : "superseded";
    const payload = { ...release, version, info: { ...release.info, status, description: `Upgrade ${version}` } };
    const encoded = gzipSync(Buffer.from(JSON.stringify(payload))).toString("base64");
    secrets.push({
      apiVersion: "v1",
      kind: "Secret",
      type: "helm.sh/release.v1",
      metadata: {
        name: `sh.helm.release.v1.${name}.v${version}`,
        namespace: "default",
        labels: { ...first.metadata.labels, status, version: String(version) },
      },
      data: { release: Buffer.from(encoded).toString("base64") },
    });
  }
  cluster.apply(secrets);
}

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
