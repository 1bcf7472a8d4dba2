/**
 * Manifests read as Helm and the API server read them (sigs.k8s.io/yaml: go-yaml v2, YAML 1.1 scalars).
 * The corpus (test/fixtures/yaml11/edge-scalars.yaml) was installed with the real helm 4.1 on the simulator,
 * and edge-scalars.stored.json is what `kubectl get -o json` read back; test/fidelity repeats that install.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { kubeYamlValue, parseKubeYamlDocuments } from "../../local/sim/kube/yaml.ts";
import { detectDrift } from "../../shared/drift/index.ts";
import { parseManifest } from "../../shared/manifest/manifest.ts";
import { parseGoYaml } from "../../shared/yaml/read.ts";
import { resolvePlainScalar } from "../../shared/yaml/scalars.ts";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/yaml11/${name}`, import.meta.url), "utf8");

test("the corpus of YAML 1.1 edge scalars reads as the API server stored it after a real helm install", () => {
  const [object] = parseManifest(fixture("edge-scalars.yaml")).objects;
  assert.deepEqual(object.object.spec, JSON.parse(fixture("edge-scalars.stored.json")));
});

test("the simulator decodes YAML bodies (apply-patch+yaml, seeds) as kube-apiserver does: the same corpus, the same values", () => {
  const [doc] = parseKubeYamlDocuments(fixture("edge-scalars.yaml"));
  const value = kubeYamlValue(doc) as { spec: unknown };
  assert.deepEqual(value.spec, JSON.parse(fixture("edge-scalars.stored.json")));
  assert.throws(() => kubeYamlValue(parseKubeYamlDocuments("~: x\n")[0]), /unsupported map key/);
});

test("go-yaml v2's resolver, one scalar at a time", () => {
  // biome-ignore format: one case per line
  const cases: [string, unknown][] = [
    ["0644", 420], ["0o644", 420], ["0O17", 15], ["08", 8], ["09.5", 9.5], ["0x1F", 31], ["-0x1F", -31], ["0b101", 5],
    ["-0b101", -5], ["1_000", 1000], ["+12", 12], ["0", 0], ["-0", 0], ["1.5e3", 1500], [".5", 0.5], ["1.", 1],
    ["y", true], ["Y", true], ["yes", true], ["YES", true], ["on", true], ["On", true], ["True", true],
    ["n", false], ["N", false], ["no", false], ["off", false], ["OFF", false], ["FALSE", false],
    ["~", null], ["null", null], ["NULL", null], ["", null], [".inf", Infinity], ["-.Inf", -Infinity],
    ["1:20", "1:20"], ["190:20:30.15", "190:20:30.15"], ["2026-01-01", "2026-01-01"], ["1e400", "1e400"],
    ["yES", "yES"], ["oN", "oN"], ["0x", "0x"], ["0b2", "0b2"], ["1_0.5", 10.5], ["- 1", "- 1"], ["+", "+"],
    ["9223372036854775807", 2 ** 63], ["18446744073709551615", 2 ** 64],
    ["+18446744073709551615", 2 ** 64], ["99999999999999999999", 1e20],
  ];
  for (const [text, value] of cases) assert.deepEqual(resolvePlainScalar(text).value, value, text);
  assert.equal(resolvePlainScalar("2026-01-01").tag, "timestamp");
  assert.equal(resolvePlainScalar("+18446744073709551615").tag, "float", "ParseUint takes no sign");
});

test("keys are strings the way sigs.k8s.io/yaml writes them; a null key is refused as Helm refuses it", () => {
  assert.deepEqual(parseGoYaml("y: 1\noff: 2\n0x10: 3\n1e3: 4\n123456789.5: 5\n0.1: 6\n1e-7: 7\n.inf: 8\n"), {
    true: 1,
    false: 2,
    16: 3,
    1000: 4,
    "1.2345679e+08": 5,
    0.1: 6,
    "1e-07": 7,
    ".inf": 8,
  });
  assert.throws(() => parseGoYaml("~: x\n"), /unsupported map key/);
  const { problems } = parseManifest("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {~: x}\n");
  assert.match(problems[0].message, /unsupported map key/);
  assert.deepEqual(parseGoYaml("base: &b {a: 1, b: 2}\nmerged:\n  <<: *b\n  b: 3\n"), {
    base: { a: 1, b: 2 },
    merged: { a: 1, b: 3 },
  });
  assert.deepEqual(parseGoYaml("a: 'yes'\nb: \"0644\"\nc: !!str 0644\nd: |\n  on\n"), {
    a: "yes",
    b: "0644",
    c: "0644",
    d: "on\n",
  });
});

test("an untouched object of an ordinary chart is no drift: octal modes, bool words, a key `y`", () => {
  // The chart test/fidelity installs with the real helm (its y11 release).
  const manifest = fixture("ordinary.yaml");
  const [cm, deploy] = parseManifest(manifest).objects;
  const live = [
    { metadata: { name: "y11-keys" }, data: { true: "2" } },
    {
      metadata: { name: "y11-web" },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "y11" } },
        template: {
          metadata: { labels: { app: "y11" } },
          spec: {
            automountServiceAccountToken: false,
            containers: [{ name: "app", image: "nginx", tty: true, stdin: false }],
            volumes: [{ name: "keys", configMap: { name: "y11-keys", defaultMode: 420, optional: false } }],
          },
        },
      },
    },
  ];
  const report = detectDrift({
    objects: [cm, deploy].map((o, i) => ({ ...o, manifest: o.object, live: live[i] as Record<string, unknown> })),
  });
  assert.deepEqual(report.fields, []);
});
