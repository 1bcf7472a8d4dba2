import assert from "node:assert/strict";
import { test } from "node:test";
import { REDACTED, redactCells, redactManifest, redactObject } from "../../shared/manifest/redact.ts";

const SECRET_VALUE = "aHVudGVyMg==";
const PLAIN_VALUE = "hunter2";

test("a live Secret keeps its keys, loses every value, including kubectl's last-applied copy", () => {
  const secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: "s",
      annotations: {
        "kubectl.kubernetes.io/last-applied-configuration": `{"data":{"password":"${SECRET_VALUE}"}}`,
        keep: "me",
      },
    },
    type: "Opaque",
    data: { password: SECRET_VALUE, other: SECRET_VALUE },
    stringData: { token: PLAIN_VALUE },
  };
  const redacted = redactObject(secret);
  assert.deepEqual(redacted.data, { password: REDACTED, other: REDACTED });
  assert.deepEqual(redacted.stringData, { token: REDACTED });
  assert.equal(redacted.metadata.annotations.keep, "me");
  assert.doesNotMatch(JSON.stringify(redacted), new RegExp(`${SECRET_VALUE}|${PLAIN_VALUE}`));
  assert.equal(secret.data.password, SECRET_VALUE, "the input is not modified");
});

test("other kinds pass through untouched; lists are redacted item by item", () => {
  const configMap = { apiVersion: "v1", kind: "ConfigMap", data: { a: "b" } };
  assert.equal(redactObject(configMap), configMap);
  const list = redactObject({
    kind: "List",
    items: [configMap, { apiVersion: "v1", kind: "Secret", data: { k: "v" } }],
  });
  assert.deepEqual(list.items[1], { apiVersion: "v1", kind: "Secret", data: { k: REDACTED } });
});

test("Secret Table cells: only NAME, TYPE, DATA, AGE survive", () => {
  const columns = [{ name: "Name" }, { name: "Type" }, { name: "Data" }, { name: "Age" }, { name: "Password" }];
  assert.deepEqual(redactCells("Secret", columns, ["s", "Opaque", 2, "5m", PLAIN_VALUE]), [
    "s",
    "Opaque",
    2,
    "5m",
    REDACTED,
  ]);
  assert.deepEqual(redactCells("ConfigMap", columns, ["a", "b"]), ["a", "b"]);
});

test("manifest: Secret documents redacted, every other document kept byte for byte", () => {
  const configMap =
    "---\n# Source: c/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: b\n";
  const secret = `---\n# Source: c/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ntype: Opaque\ndata:\n  password: ${SECRET_VALUE}\nstringData:\n  token: "${PLAIN_VALUE}"\n`;
  const list = `---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: s2}\n  stringData: {k: ${PLAIN_VALUE}}\n`;
  const out = redactManifest(configMap + secret + list);
  assert.ok(out.startsWith(configMap));
  assert.doesNotMatch(out, new RegExp(`${SECRET_VALUE}|${PLAIN_VALUE}`));
  assert.match(out, /# Source: c\/templates\/secret\.yaml\napiVersion: v1\nkind: Secret\n/);
  assert.match(out, /password: <redacted>/);
  assert.match(out, /token: <redacted>/);
  assert.match(out, /k: <redacted>/);
  assert.equal(redactManifest(configMap), configMap, "nothing to do without a Secret");
});

test("manifest: a Secret document that does not parse is withheld whole", () => {
  const broken = `---\n# Source: c/templates/secret.yaml\napiVersion: v1\nkind: Secret\ndata:\n  password: [${PLAIN_VALUE}\n`;
  const out = redactManifest(broken);
  assert.doesNotMatch(out, new RegExp(PLAIN_VALUE));
  assert.match(
    out,
    /# Source: c\/templates\/secret\.yaml\n# \(a Secret document that could not be parsed is withheld\)/,
  );
});

test("manifest: a Secret is recognised by its parsed value, however it is written", () => {
  const value = "aHVudGVyMg==";
  const BS = "\\";
  const secrets = [
    `apiVersion: v1\nkind: Secret # the credentials\nmetadata:\n  name: a\ndata:\n  pw: ${value}\n`,
    `{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "a"}, "data": {"pw": "${value}"}}\n`,
    `apiVersion: v1\nkind: List\nitems:\n- kind: Secret\n  apiVersion: v1\n  data:\n    pw: ${value}\n`,
    `apiVersion: v1\n"kind": Secret\ndata:\n  pw: ${value}\n`,
    `apiVersion: v1\nkind: !!str Secret\ndata:\n  pw: ${value}\n`,
    `apiVersion: v1\nkind: "Secr${BS}x65t"\ndata:\n  pw: ${value}\n`,
    `apiVersion: v1\nkind: Secret\n<<: {data: {pw: ${value}}}\n`,
    `apiVersion: v1\n<<: {kind: Secret}\ndata:\n  pw: ${value}\n`,
    `apiVersion: v1\nkind: Secret\ndata:\n  other: eA==\ndata:\n  pw: ${value}\n`,
    `apiVersion: v1\nkind: Secret\ndata:\n  pw: &p ${value}\nmetadata:\n  name: a\n  annotations:\n    copy: *p\n`,
  ];
  for (const secret of secrets) {
    const configMap = "---\n# Source: c/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n";
    const out = redactManifest(`${configMap}---\n# Source: c/templates/secret.yaml\n${secret}`);
    assert.doesNotMatch(out, /aHVudGVyMg/, secret);
    assert.ok(out.startsWith(configMap), out);
    assert.match(out, /# Source: c\/templates\/secret\.yaml\n/, out);
  }
});

test("manifest: a redacted Secret keeps its comments once, and a value shared with a label does not withhold it", () => {
  const secret =
    "# Source: db/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: postgres-creds\n" +
    "  labels:\n    app: postgres\nstringData:\n  username: postgres\n";
  assert.equal(
    redactManifest(secret),
    "# Source: db/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: postgres-creds\n" +
      "  labels:\n    app: postgres\nstringData:\n  username: <redacted>\n",
  );
});
