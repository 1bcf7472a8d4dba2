/**
 * The releases test/fidelity/helm-bytes.test.ts compares, installed by the real helm on the simulated EKS:
 * `words` (ConfigMaps holding every YAML 1.1-looking string as values and keys, integer-like keys, "False"/"false"
 * descriptions, appVersion "FALSE"), `many` (revisions past helm history's 256), `prio` (a PriorityClass) and `marks`
 * (DESCRIPTIONs whose widths go-runewidth counts its own way).
 */
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { gunzipSync, gzipSync } from "node:zlib";
import type { HelmCompare } from "../support/helm-compare.ts";
import type { HelmStack } from "../support/helm-stack.ts";
import { kubectlPath, kubeToolsEnv } from "../support/kube-tools.ts";

const exec = promisify(execFile);

/** Every word go-yaml v2's resolver reads as a bool, null or float, and numbers, dates and near-misses. */
export const YAMLISH = [
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
export const MARKS = [
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

export async function installBytesReleases(
  h: HelmCompare,
  stack: HelmStack,
  cluster: string,
  manyRevisions: number,
): Promise<void> {
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
  await writeManyRevisions(stack, cluster, "many", manyRevisions);
}

/** Revisions 2..count of `name` as Helm's storage holds them: copies of revision 1's Secret, the last deployed. */
async function writeManyRevisions(stack: HelmStack, clusterName: string, name: string, count: number): Promise<void> {
  const cluster = stack.sim.cluster(clusterName);
  const kubectl = await kubectlPath();
  if (!kubectl) throw new Error("no kubectl");
  const { stdout } = await exec(kubectl, ["get", "secret", `sh.helm.release.v1.${name}.v1`, "-o", "json"], {
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
