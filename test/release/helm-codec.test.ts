import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { gunzipSync, gzipSync } from "node:zlib";
import {
  decodeHelmStorageObject,
  decodeReleasePayload,
  describeObject,
  encodeHelmConfigMap,
  encodeHelmSecret,
  encodeReleasePayload,
  isHelmStorageObject,
  releaseFromHelmJson,
} from "../../shared/release/helm-codec.ts";
import { makeRelease } from "../store/fixtures.ts";

const CAPTURES = new URL("../fixtures/helm-v4-captures", import.meta.url).pathname;

test("a Secret is base64(base64(gzip -9(json))) with Helm's name, type and labels, and decodes back", () => {
  const release = makeRelease({ name: "demo", version: 2 });
  const secret = encodeHelmSecret(release, { createdAt: 1764688200 });
  assert.equal(secret.metadata.name, "sh.helm.release.v1.demo.v2");
  assert.equal(secret.type, "helm.sh/release.v1");
  assert.deepEqual(secret.metadata.labels, {
    team: "platform",
    name: "demo",
    owner: "helm",
    status: "deployed",
    version: "2",
    createdAt: "1764688200",
  });
  const inner = Buffer.from(secret.data.release, "base64").toString("latin1");
  const gz = Buffer.from(inner, "base64");
  assert.deepEqual([...gz.subarray(0, 3)], [0x1f, 0x8b, 0x08]);
  assert.equal(gz[8], 2, "XFL=2: maximum compression (level 9)");
  const json = gunzipSync(gz).toString("utf8");
  assert.match(json, /\\u003chere\\u003e \\u0026 there/, "Go's json.Marshal HTML escaping");
  assert.equal(JSON.parse(json).labels, undefined, 'labels are json:"-" in Helm');
  assert.deepEqual(decodeHelmStorageObject(secret), release);
});

test("a ConfigMap carries base64(gzip(json)) once, and decodes back", () => {
  const release = makeRelease({ name: "cm", version: 7, status: "failed" });
  const configMap = encodeHelmConfigMap(release);
  assert.equal(configMap.kind, "ConfigMap");
  assert.equal(gunzipSync(Buffer.from(configMap.data.release, "base64"))[0], "{".charCodeAt(0));
  assert.deepEqual(decodeHelmStorageObject(configMap), release);
});

test("payloads without the gzip magic are read as plain JSON (Helm gunzips only on 1f 8b 08)", () => {
  const release = makeRelease();
  const plain = Buffer.from(JSON.stringify(release)).toString("base64");
  assert.equal(decodeReleasePayload(plain).manifest, release.manifest);
});

test("the chart is stripped to its metadata; v3's empty zero times are dropped", () => {
  const decoded = releaseFromHelmJson({
    name: "v3",
    version: 1,
    namespace: "apps",
    info: {
      first_deployed: "2020-01-01T00:00:00Z",
      last_deployed: "2020-01-01T00:00:00Z",
      deleted: "",
      status: "deployed",
    },
    chart: {
      metadata: { name: "c", version: "1.0.0", appVersion: "2" },
      templates: [{ name: "t", data: "eA==" }],
      values: { a: 1 },
    },
    config: {},
    manifest: "x",
    hooks: [
      {
        name: "h",
        kind: "Job",
        path: "p",
        manifest: "m",
        events: ["post-install"],
        last_run: { started_at: "", completed_at: "", phase: "" },
      },
    ],
  });
  assert.deepEqual(decoded.chart, { metadata: { name: "c", version: "1.0.0", appVersion: "2" } });
  assert.equal(decoded.info?.deleted, undefined);
  assert.equal(decoded.config, undefined);
  assert.deepEqual(decoded.hooks?.[0].last_run, { phase: "" });
});

test("a hook's last run keeps Helm's key order (started_at, completed_at, phase), however it was stored", () => {
  const run = { phase: "Succeeded", completed_at: "2026-12-02T15:10:02Z", started_at: "2026-12-02T15:10:00Z" };
  const release = releaseFromHelmJson({
    name: "r",
    namespace: "default",
    version: 1,
    info: { status: "deployed" },
    manifest: "",
    hooks: [{ name: "t", kind: "Pod", path: "p", manifest: "m", events: ["test"], last_run: run }],
  });
  assert.equal(
    JSON.stringify(release.hooks?.[0].last_run),
    '{"started_at":"2026-12-02T15:10:00Z","completed_at":"2026-12-02T15:10:02Z","phase":"Succeeded"}',
  );
});

test("the real helm v4 capture (helm status -o json) decodes and survives the Secret round trip", () => {
  const capture = JSON.parse(readFileSync(`${CAPTURES}/helm-status-output-demo.json`, "utf8"));
  const release = releaseFromHelmJson(capture);
  assert.equal(release.name, "demo");
  assert.equal(release.version, 2);
  assert.equal(release.info?.status, "deployed");
  assert.equal(release.manifest, capture.manifest);
  assert.equal(release.hooks?.[0].name, "demo-test-connection");
  assert.equal(release.apply_method, capture.apply_method);
  assert.equal("resources" in (release.info ?? {}), false, "live resources are not part of a stored release");
  assert.deepEqual(decodeHelmStorageObject(encodeHelmSecret(release)), release);
});

test("every corruption is a HelmPayloadError that says what is wrong", () => {
  const secret = encodeHelmSecret(makeRelease());
  const cases: [unknown, RegExp][] = [
    [{ ...secret, data: {} }, /no data.release/],
    [{ ...secret, data: { release: "***" } }, /not valid base64/],
    [{ ...secret, data: { release: Buffer.from("@@@@").toString("base64") } }, /release payload is not valid base64/],
    [
      {
        ...secret,
        data: {
          release: Buffer.from(Buffer.from([0x1f, 0x8b, 0x08, 0, 1, 2, 3, 4]).toString("base64")).toString("base64"),
        },
      },
      /not valid gzip/,
    ],
    [{ ...secret, data: { release: b64b64(gzipSync("{not json")) } }, /not valid JSON/],
    // V8 quotes the text around an unexpected token; the release JSON holds the values.
    [
      { ...secret, data: { release: b64b64(gzipSync('{"config": {"password": hunter2}}')) } },
      /release payload is not valid JSON: unexpected character \(/,
    ],
    [{ ...secret, data: { release: b64b64(gzipSync(JSON.stringify({ version: 1 }))) } }, /has no name/],
    [{ ...secret, data: { release: b64b64(gzipSync(JSON.stringify({ name: "a" }))) } }, /has no version/],
    [
      { ...secret, data: { release: b64b64(gzipSync(JSON.stringify({ name: "A_B", version: 1 }))) } },
      /invalid release name/,
    ],
    [{ ...secret, data: { release: b64b64(gzipSync(JSON.stringify({ name: "a", version: 0 }))) } }, /invalid revision/],
    [{ ...secret, data: { release: b64b64(gzipSync(JSON.stringify([1]))) } }, /not an object/],
    [
      {
        ...secret,
        data: { release: b64b64(gzipSync(JSON.stringify({ name: "a", version: 1, info: { status: "weird" } }))) },
      },
      /invalid release status/,
    ],
  ];
  for (const [object, message] of cases) {
    assert.throws(
      () => decodeHelmStorageObject(object as never),
      { name: "HelmPayloadError", kind: "validation", message },
      String(message),
    );
  }
});

test("a gzip bomb is refused with a clear error instead of exhausting memory", () => {
  const bomb = gzipSync(Buffer.alloc(80 * 1024 * 1024, 0x20), { level: 9 });
  assert.throws(() => decodeReleasePayload(bomb.toString("base64")), {
    name: "HelmPayloadError",
    message: /inflates beyond/,
  });
});

test("which objects are Helm's, and how they are named", () => {
  const secret = encodeHelmSecret(makeRelease());
  assert.equal(isHelmStorageObject(secret), true);
  assert.equal(isHelmStorageObject(encodeHelmConfigMap(makeRelease())), true);
  assert.equal(isHelmStorageObject({ kind: "Secret", type: "Opaque", metadata: { name: "x" } }), false);
  assert.equal(isHelmStorageObject({ kind: "ConfigMap", metadata: { name: "kube-root-ca.crt" } }), false);
  assert.equal(isHelmStorageObject({ kind: "Pod" }), false);
  assert.equal(isHelmStorageObject(null), false);
  assert.equal(describeObject(secret), "Secret/default/sh.helm.release.v1.demo.v1");
  assert.equal(describeObject({}), "Object/<unnamed>");
});

test("a release JSON without namespace takes the storage object's namespace", () => {
  const { namespace: _ns, ...noNamespace } = makeRelease({ name: "nons" });
  const secret = encodeHelmSecret(makeRelease({ name: "nons", namespace: "team-a" }));
  secret.data.release = b64b64(gzipSync(JSON.stringify(noNamespace)));
  assert.equal(decodeHelmStorageObject(secret).namespace, "team-a");
});

test("encodeReleasePayload is what decodeReleasePayload reads", () => {
  const release = makeRelease({ name: "x" });
  const { labels: _labels, ...withoutLabels } = release;
  assert.deepEqual(decodeReleasePayload(encodeReleasePayload(release)), withoutLabels);
});

function b64b64(bytes: Buffer): string {
  return Buffer.from(bytes.toString("base64")).toString("base64");
}
