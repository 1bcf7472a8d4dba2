import assert from "node:assert/strict";
import { test } from "node:test";
import { parseManifest } from "../../shared/manifest/manifest.ts";
import { capture } from "../status/captures.ts";

test("the helm create manifest: four objects in manifest order with their # Source paths", () => {
  const { objects, problems } = parseManifest(capture("helm-create-demo-manifest.yaml"));
  assert.deepEqual(problems, []);
  assert.deepEqual(
    objects.map((o) => [o.apiVersion, o.kind, o.name, o.source, o.index]),
    [
      ["v1", "ServiceAccount", "demo", "demo/templates/serviceaccount.yaml", 0],
      ["v1", "Service", "demo", "demo/templates/service.yaml", 1],
      ["apps/v1", "Deployment", "demo", "demo/templates/deployment.yaml", 2],
      ["v1", "Pod", "demo-test-connection", "demo/templates/tests/test-connection.yaml", 3],
    ],
  );
  assert.deepEqual((objects[2].object.spec as { selector: unknown }).selector, {
    matchLabels: { "app.kubernetes.io/name": "demo", "app.kubernetes.io/instance": "demo" },
  });
});

test("empty documents, comment-only documents and an empty manifest are skipped", () => {
  assert.deepEqual(parseManifest(""), { objects: [], problems: [] });
  assert.deepEqual(parseManifest("\n\n"), { objects: [], problems: [] });
  const { objects, problems } = parseManifest(
    "---\n# Source: c/templates/empty.yaml\n---\n# Source: c/templates/off.yaml\n# nothing rendered\n---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: other\n",
  );
  assert.deepEqual(problems, []);
  assert.equal(objects.length, 1);
  assert.equal(objects[0].namespace, "other");
  assert.equal(objects[0].index, 0);
});

test("List kinds are flattened into their items, keeping the List's source", () => {
  const { objects } = parseManifest(
    "# Source: c/templates/list.yaml\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a}\n- apiVersion: v1\n  kind: ConfigMapList\n  items:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: b}\n",
  );
  assert.deepEqual(
    objects.map((o) => [o.kind, o.name, o.source, o.index]),
    [
      ["Service", "a", "c/templates/list.yaml", 0],
      ["ConfigMap", "b", "c/templates/list.yaml", 1],
    ],
  );
});

test("broken documents become problems that name what they can; the rest is still parsed", () => {
  const { objects, problems } = parseManifest(
    [
      "---\n# Source: c/templates/bad.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: broken\n  labels: [unclosed\n",
      "---\n# Source: c/templates/noname.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {}\n",
      "---\n- just\n- a list\n",
      "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: fine\n",
    ].join(""),
  );
  assert.deepEqual(
    objects.map((o) => o.name),
    ["fine"],
  );
  assert.equal(problems.length, 3);
  assert.equal(problems[0].kind, "Service");
  assert.equal(problems[0].name, "broken");
  assert.equal(problems[0].source, "c/templates/bad.yaml");
  assert.match(problems[0].message, /^invalid YAML: /);
  assert.deepEqual(
    { kind: problems[1].kind, message: problems[1].message },
    { kind: "ConfigMap", message: "object has no metadata.name" },
  );
  assert.equal(problems[2].message, "document is not a mapping");
});

test("a broken Secret document's problem names the fault and its place, never a piece of its values", () => {
  const manifest = [
    "---\n# Source: c/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n",
    "stringData:\n  password: |hunter2\n  token: *s3cr3t\n",
  ].join("");
  const { problems } = parseManifest(manifest);
  assert.equal(problems.length, 1);
  assert.equal(problems[0].kind, "Secret");
  assert.match(
    problems[0].message,
    /^invalid YAML: Block scalar header includes extra characters at line \d+, column \d+$/,
  );
  assert.doesNotMatch(JSON.stringify(problems), /hunter2|s3cr3t/);
});

test("a document that cannot be read for any reason is a problem of its own; the others are still read", () => {
  const cm = (name: string) =>
    `---\n# Source: c/templates/${name}.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;
  const bomb = [
    "---",
    "# Source: c/templates/bomb.yaml",
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata: {name: lol}",
    "data:",
    "  a: &a [x, x, x, x, x, x, x, x, x]",
    "  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
    "  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
    "  d: [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
    "",
  ].join("\n");
  const deep = `---\n# Source: c/templates/deep.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: ${"[".repeat(300)}${"]".repeat(300)}\n`;
  const { objects, problems } = parseManifest(cm("first") + bomb + deep + cm("last"));
  assert.deepEqual(
    objects.map((o) => o.name),
    ["first", "last"],
  );
  assert.deepEqual(
    problems.map((p) => [p.kind, p.name, p.source, p.overLimit]),
    [
      ["ConfigMap", "lol", "c/templates/bomb.yaml", true],
      ["ConfigMap", "deep", "c/templates/deep.yaml", true],
    ],
  );
  assert.match(problems[0].message, /more than 100 alias expansions/);
  assert.match(problems[1].message, /nested deeper than 256 levels/);
});
