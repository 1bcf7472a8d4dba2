/** The `token` and `kubeconfig` commands' offline behaviour: output shape and bad input (one line, no stack). */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { Writable } from "node:stream";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { runCommand } from "../../bin/lib/run.ts";
import { decodeEksToken } from "../../shared/eks/token.ts";

const keys = { AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };

function cli(args: string[], env: Record<string, string> = {}) {
  // No inherited AWS_* or registry variables: the commands must not depend on the developer's setup.
  const base = { PATH: process.env.PATH ?? "", HOME: "/nonexistent", AWS_EC2_METADATA_DISABLED: "true" };
  return spawnSync(process.execPath, ["bin/cli.ts", ...args], {
    encoding: "utf8",
    env: { ...base, ...env },
    timeout: 30_000,
  });
}

test("token prints an ExecCredential in aws eks get-token's shape", () => {
  const before = Math.floor(Date.now() / 1000) * 1000;
  const result = cli(["token", "--cluster", "my-cluster", "--region", "eu-west-1"], keys);
  assert.equal(result.status, 0, result.stderr);
  assert.match(
    result.stdout,
    /^\{\n {4}"kind": "ExecCredential",\n {4}"apiVersion": "client\.authentication\.k8s\.io\/v1beta1",\n {4}"spec": \{\},\n {4}"status": \{\n {8}"expirationTimestamp": "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ",\n {8}"token": "k8s-aws-v1\.[\w-]+"\n {4}\}\n\}\n\n$/,
  );
  const credential = JSON.parse(result.stdout);
  const url = decodeEksToken(credential.status.token);
  assert.equal(url.host, "sts.eu-west-1.amazonaws.com");
  const expiry = Date.parse(credential.status.expirationTimestamp);
  assert.ok(expiry >= before + 14 * 60_000 && expiry <= Date.now() + 14 * 60_000, "expires 14 minutes after signing");
});

test("token answers kubectl's KUBERNETES_EXEC_INFO apiVersion", () => {
  const execInfo = JSON.stringify({
    apiVersion: "client.authentication.k8s.io/v1",
    kind: "ExecCredential",
    spec: { interactive: false },
  });
  const result = cli(["token", "--cluster", "c", "--region", "us-east-1"], { ...keys, KUBERNETES_EXEC_INFO: execInfo });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(JSON.parse(result.stdout).apiVersion, "client.authentication.k8s.io/v1");
});

// One line per bad invocation: arguments, environment, exit code, the one-line error.
const bad: [string, string[], Record<string, string>, number, RegExp][] = [
  ["no --cluster", ["token"], keys, 2, /^Error: --cluster NAME is required\n$/],
  ["no region and no registry", ["token", "--cluster", "c"], keys, 2, /^Error: no region: pass --region R/],
  ["an unknown flag", ["token", "--cluster", "c", "--regoin", "x"], keys, 2, /^Error: unknown flag: --regoin$/m],
  [
    "a bad cluster name",
    ["token", "--cluster", "a b", "--region", "us-east-1"],
    keys,
    2,
    /^Error: --cluster\/--region \("a b"\): field "name" "a b" is invalid/,
  ],
  ["a bad region", ["token", "--cluster", "c", "--region", "mars"], keys, 2, /field "region" "mars" is invalid/],
  [
    "a cluster missing from the registry",
    ["token", "--cluster", "x"],
    { ...keys, CLUSTERS: '[{"name":"a","region":"us-east-1"}]' },
    1,
    /^Error: unknown cluster "x" \(known: a\)\n$/,
  ],
  [
    "a region contradicting the registry",
    ["token", "--cluster", "a", "--region", "eu-west-1"],
    { ...keys, CLUSTERS: '[{"name":"a","region":"us-east-1"}]' },
    2,
    /contradicts the registry/,
  ],
  [
    "a malformed registry",
    ["token", "--cluster", "a"],
    { ...keys, CLUSTERS: '[{"name":"a"}]' },
    2,
    /^Error: CLUSTERS: entry 0 \("a"\): field "region" is required\n$/,
  ],
  [
    "both registries",
    ["kubeconfig", "--cluster", "a"],
    { ...keys, CLUSTERS: "[]", CLUSTERS_FILE: "/x" },
    2,
    /both CLUSTERS and CLUSTERS_FILE/,
  ],
  ["kubeconfig without --cluster", ["kubeconfig"], keys, 2, /^Error: --cluster NAME is required\n$/],
];

// In process through the CLI's own runner (same error reporting as bin/cli.ts), so the table
// does not pay a Node start per line; the first case also runs as a real process.
async function runInProcess(args: string[], env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const sink = (into: string[]) =>
    new Writable({
      write(chunk, _encoding, done) {
        into.push(String(chunk));
        done();
      },
    });
  const io = {
    stdout: sink(out),
    stderr: sink(err),
    stdin: process.stdin,
    env,
  };
  const file = fileURLToPath(new URL(`../../bin/commands/${args[0]}.ts`, import.meta.url));
  const status = await runCommand(file, args.slice(1), io);
  return { status, stdout: out.join(""), stderr: err.join("") };
}

for (const [index, [label, args, env, status, message]] of bad.entries()) {
  test(`CLI with ${label}: exit ${status}, one clear line`, async () => {
    const result = index === 0 ? cli(args, env) : await runInProcess(args, env);
    assert.equal(result.status, status, result.stderr);
    assert.match(result.stderr, message);
    assert.equal(result.stdout, "");
    assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
  });
}
