/** The store commands as a user runs them: `node bin/cli.ts ...` against DynamoDB Local (one engine for the file). */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type DynamoDbLocal, freeLoopbackPort, startDynamoDbLocal } from "../local/dynamodb-local.ts";
import { encodeHelmConfigMap, encodeHelmSecret } from "../shared/release/helm-codec.ts";
import { storeConfigFromEnv } from "../shared/store/config.ts";
import { openAttributionStore } from "../shared/who/config.ts";
import { makeRelease } from "./store/fixtures.ts";
import { CLI, type Run, runCli, spawnNode } from "./support/cli.ts";
import { found, HOSTILE, revisionSubject } from "./who/support.ts";

const workDir = mkdtempSync(join(tmpdir(), "cli-store-"));
let engine: DynamoDbLocal;

const cli = (args: string[], env: NodeJS.ProcessEnv, stdin?: string) => spawnNode(CLI, args, { env, stdin });

/** Runs a command module in this process through bin/lib/run.ts, the dispatcher's error reporting. */
const inProcess = (args: string[], env: NodeJS.ProcessEnv, stdin = "", terminal = false) =>
  runCli(args, env, { stdin, terminal });

/** A user error: non-zero exit, exactly one line on stderr, no stack trace. */
function assertOneLineError(run: Run, message: RegExp, code = 2, label = ""): void {
  assert.equal(run.code, code, `${label} ${run.stderr}${run.stdout}`);
  const lines = run.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0], /^Error: /);
  assert.match(lines[0], message);
}

const baseEnv = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: workDir,
  AWS_REGION: "us-east-1",
  AWS_ACCESS_KEY_ID: "test",
  AWS_SECRET_ACCESS_KEY: "test",
  AWS_ENDPOINT_URL_DYNAMODB: engine.endpoint,
  RELEASES_TABLE: "cli-releases",
});

const v1 = makeRelease({ name: "demo", version: 1, status: "superseded" });
const v2 = makeRelease({ name: "demo", version: 2, status: "deployed" });
const other = makeRelease({ name: "other", namespace: "kube-system", version: 3, status: "failed" });
const documentPath = join(workDir, "helm-secrets.json");

before(async () => {
  engine = await startDynamoDbLocal();
  const broken = { ...encodeHelmSecret(makeRelease({ name: "broken" })), data: { release: "%%%" } };
  const plain = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "x", namespace: "default" },
    data: { a: "eA==" },
  };
  const items = [encodeHelmSecret(v1), encodeHelmSecret(v2), encodeHelmConfigMap(other), plain, broken];
  writeFileSync(documentPath, JSON.stringify({ apiVersion: "v1", kind: "List", items }));
});
after(async () => {
  await engine?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe("store CLI on DynamoDB Local", () => {
  test("before init, a command names the missing table and the fix", async () => {
    assertOneLineError(await cli(["list"], baseEnv()), /table "cli-releases" does not exist at http.*cli -- init/, 1);
  });

  test("init creates the table, then says it exists", async () => {
    const first = await cli(["init"], baseEnv());
    assert.equal(first.code, 0, first.stderr);
    assert.match(
      first.stdout,
      /^table "cli-releases" created at http:\/\/127\.0\.0\.1:\d+ \(region us-east-1\)\ntable "helm-status-snapshots" created at http:\/\/127\.0\.0\.1:\d+\n$/,
    );
    const second = await cli(["init"], baseEnv());
    assert.match(second.stdout, /already exists/);
  });

  test("import from a file and from stdin: summary on stdout, broken object named, exit 1 when any failed", async () => {
    const run = await cli(["import", documentPath], baseEnv());
    assert.equal(run.code, 1, run.stderr);
    assert.equal(
      run.stdout,
      "failed: Secret/default/sh.helm.release.v1.broken.v1: data.release (Secret data is base64 on the wire) is not valid base64\n" +
        "cluster local: imported 3, unchanged 0, skipped 1, failed 1\n",
    );
    assert.equal(run.stderr, "", "no progress when stderr is not a terminal");
    const again = await cli(["import", "-", "-o", "json"], baseEnv(), JSON.stringify(encodeHelmSecret(v2)));
    assert.equal(again.code, 0, again.stderr);
    const summary = JSON.parse(again.stdout);
    assert.equal(summary.unchanged, 1);
    assert.deepEqual(summary.results[0], {
      object: "Secret/default/sh.helm.release.v1.demo.v2",
      outcome: "unchanged",
      release: "default/demo",
      revision: 2,
    });
  });

  test("import shows progress on stderr only when it is a terminal", async () => {
    const run = await inProcess(
      ["import", "-", "--cluster", "tty"],
      baseEnv(),
      JSON.stringify(encodeHelmSecret(v1)),
      true,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "\rimporting 1/1\n");
    assert.equal(run.stdout, "cluster tty: imported 1, unchanged 0, skipped 0, failed 0\n");
  });

  test("list: helm's table for one namespace or all, JSON and YAML, status filter", async () => {
    const table = await cli(["list", "-A"], baseEnv());
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.split("\n");
    assert.match(lines[0], /^NAME \tNAMESPACE {2}\tREVISION\tUPDATED\s+\tSTATUS {2}\tCHART {5}\tAPP VERSION$/);
    assert.match(
      lines[1],
      /^demo \tdefault {4}\t2 {7}\t2026-12-02 15:02:00\.5 \+0200 \+0200\tdeployed\tdemo-0\.1\.0\t1\.16\.0 {5}$/,
    );
    assert.match(lines[2], /^other\tkube-system\t3 +\t.*\tfailed {2}\t/);
    const json = await cli(["list", "-n", "kube-system", "-o", "json"], baseEnv());
    assert.deepEqual(JSON.parse(json.stdout), [
      {
        name: "other",
        namespace: "kube-system",
        revision: "3",
        updated: "2026-12-02 15:03:00.5 +0200 +0200",
        status: "failed",
        chart: "demo-0.1.0",
        app_version: "1.16.0",
      },
    ]);
    const yaml = await cli(["list", "-A", "--status", "deployed", "-o", "yaml"], baseEnv());
    assert.match(yaml.stdout, /^- app_version: 1\.16\.0\n {2}chart: demo-0\.1\.0\n {2}name: demo\n/);
    assert.equal((await cli(["list", "--cluster", "elsewhere", "-A"], baseEnv())).stdout.split("\n").length, 2);
  });

  test("history: oldest first with ANSI C times, --max, -o json", async () => {
    const run = await cli(["history", "demo", "-n", "default"], baseEnv());
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      "REVISION\tUPDATED                 \tSTATUS    \tCHART     \tAPP VERSION\tDESCRIPTION     \n" +
        "1       \tWed Dec  2 15:01:00 2026\tsuperseded\tdemo-0.1.0\t1.16.0     \tInstall complete\n" +
        "2       \tWed Dec  2 15:02:00 2026\tdeployed  \tdemo-0.1.0\t1.16.0     \tUpgrade complete\n",
    );
    const last = await cli(["history", "demo", "--max", "1", "-o", "json"], baseEnv());
    assert.deepEqual(JSON.parse(last.stdout), [
      {
        revision: 2,
        updated: "2026-12-02T15:02:00.5+02:00",
        status: "deployed",
        chart: "demo-0.1.0",
        app_version: "1.16.0",
        description: "Upgrade complete",
      },
    ]);
  });

  test("history --who: a WHO column from the attributions kept in the table; -o json names who, never the ARN", async () => {
    const attributions = openAttributionStore(storeConfigFromEnv(baseEnv()));
    await attributions.settle([found(revisionSubject("local", "default", "demo", 2), HOSTILE)]);
    const plain = await cli(["history", "demo", "-n", "default"], baseEnv());
    assert.doesNotMatch(plain.stdout, /WHO|onerror/, "no flag: helm's table");
    const run = await cli(["history", "demo", "-n", "default", "--who"], baseEnv());
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trimEnd().split("\n");
    assert.equal(lines.length, 3);
    assert.match(lines[0], /\tDESCRIPTION {5}\tWHO/);
    assert.match(lines[1], /\t- +$/);
    assert.match(lines[2], /\t<img src=x onerror=alert\(1\)>\^\[\[31m\.\.\.$/, "ESC defused, cut at the newline");
    const json = await cli(["history", "demo", "-n", "default", "-o", "json"], baseEnv());
    const who = JSON.parse(json.stdout)[1].who;
    assert.equal(who.name, HOSTILE.name);
    assert.equal(who.arn, undefined);
    assert.doesNotMatch(json.stdout, /arn:aws|111122223333/);
  });

  test("get manifest prints the stored manifest byte for byte plus Println's newline, latest by default", async () => {
    const first = await cli(["get", "manifest", "demo", "-n", "default", "--revision", "1"], baseEnv());
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, `${v1.manifest}\n`);
    const latest = await cli(["get", "manifest", "other", "-n", "kube-system"], baseEnv());
    assert.equal(latest.stdout, `${other.manifest}\n`);
    for (const zero of ["0", "-1"]) {
      const same = await cli(["get", "manifest", "other", "-n", "kube-system", `--revision=${zero}`], baseEnv());
      assert.equal(same.stdout, latest.stdout, `--revision=${zero} is the latest`);
    }
  });

  test("get manifest redacts Secret values like the API; other documents stay byte for byte", async () => {
    const configMap =
      "---\n# Source: demo/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: b\n";
    const secret =
      "---\n# Source: demo/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n" +
      "data:\n  password: aHVudGVyMg==\nstringData:\n  token: s3cr3t-token\n";
    const release = makeRelease({ name: "with-secret", version: 1, manifest: configMap + secret });
    const put = await cli(["import", "-"], baseEnv(), JSON.stringify(encodeHelmSecret(release)));
    assert.equal(put.code, 0, put.stderr);
    const run = await cli(["get", "manifest", "with-secret"], baseEnv());
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.startsWith(configMap), run.stdout);
    assert.doesNotMatch(run.stdout, /aHVudGVyMg|s3cr3t-token/);
    assert.match(run.stdout, /password: <redacted>\n/);
    assert.match(run.stdout, /token: <redacted>\n/);
  });

  test("bad inputs (spawned): one line on stderr that says what is wrong, non-zero exit", async () => {
    const env = baseEnv();
    const runs = await Promise.all([
      cli(["history", "nope"], env),
      cli(["history", "Bad_Name"], env),
      cli(["get", "manifest", "demo", "--revision", "abc"], env),
      cli(["list", "--bogus"], env),
    ]);
    assertOneLineError(runs[0], /^Error: release: not found$/, 1);
    assertOneLineError(runs[1], /^Error: release name is invalid: Bad_Name$/, 2); // helm history's wording
    // pflag's words, as helm prints them.
    assertOneLineError(
      runs[2],
      /^Error: invalid argument "abc" for "--revision" flag: strconv.ParseInt: parsing "abc": invalid syntax$/,
      2,
    );
    assertOneLineError(runs[3], /^Error: unknown flag: --bogus$/, 2);
  });

  test("bad inputs (in process, same command modules and error reporting)", async () => {
    const env = baseEnv();
    const cases: [string[], RegExp, number][] = [
      [["get", "manifest", "demo", "--revision", "9"], /^Error: release: not found$/, 1],
      [["history", "demo", "-n", "Not_A_Namespace"], /invalid namespace "Not_A_Namespace"/, 2],
      [
        ["history", "demo", "--max", "few"],
        /invalid argument "few" for "--max" flag: strconv.ParseInt: parsing "few"/,
        2,
      ],
      [["history"], /^Error: "helm history" requires 1 argument$/m, 2],
      [["get", "manifest", "demo", "--revision", "2147483648"], /invalid revision/, 2],
      [["get", "values", "demo"], /unknown get subcommand "values"/, 2],
      [["get"], /get needs a subcommand/, 2],
      [["list", "--status", "bogus"], /invalid release status "bogus"/, 2],
      [["list", "--offset", "-1"], /^Error: invalid offset -1: must be a whole number >= 0$/m, 2],
      [["list", "-l", "=="], /^Error: found '==', expected: !, identifier, or 'end of string'$/m, 2],
      [["history", "a", "b"], /^Error: "helm history" requires 1 argument$/m, 2],
      [["list", "-n", "a", "-A"], /either -n NAMESPACE or -A/, 2],
      [["list", "-o", "xml"], /^Error: invalid argument "xml" for "-o, --output" flag: invalid format type$/m, 2],
      [["list", "--cluster", "a#b"], /invalid cluster name "a#b"/, 2],
      [["list", "extra"], /^Error: unexpected argument "extra": this command takes none$/m, 2],
      [["import", join(workDir, "missing.json")], /cannot read ".*missing\.json": no such file/, 2],
      [["import", workDir], /it is a directory/, 2],
      [["import", "a", "b"], /import takes one FILE/, 2],
    ];
    for (const [args, message, code] of cases) {
      assertOneLineError(await inProcess(args, env), message, code, args.join(" "));
    }
    assertOneLineError(await inProcess(["import", "-"], env, "{not json"), /stdin is not valid JSON/, 2);
    // Parsers quote the input around a fault; a release Secret's value must not reach a CI log.
    // Unterminated: neither JSON nor YAML flow (a complete `{... hunter2}` is valid YAML flow and is read as such).
    const leaky = await inProcess(["import", "-"], env, '{"kind": "Secret", "data": {"password": hunter2}');
    assertOneLineError(leaky, /stdin is not valid JSON: .*\(nor YAML: /, 2);
    assert.doesNotMatch(leaky.stderr, /hunter2/);
    const leakyYaml = await inProcess(["import", "-"], env, "kind: Secret\ndata:\n  password: |hunter2\n");
    assertOneLineError(leakyYaml, /neither JSON nor YAML: Block scalar header includes extra characters at line 3/, 2);
    assert.doesNotMatch(leakyYaml.stderr, /hunter2/);
    assertOneLineError(await inProcess(["import", "-"], env, ""), /stdin is empty/, 2);
    assertOneLineError(await inProcess(["import", "-"], env, "just some text\n"), /not a Kubernetes object/, 2);
    assertOneLineError(await inProcess(["import", "-"], env, "[1,2,3]"), /not a Kubernetes object/, 2);
    assertOneLineError(await inProcess(["import", "-"], env, "{}"), /not a Kubernetes object/, 2);
    const latin1 = join(workDir, "latin1.json");
    writeFileSync(latin1, Buffer.from('{"apiVersion":"v1","kind":"List","items":[],"x":"caf\xe9"}', "latin1"));
    assertOneLineError(await inProcess(["import", latin1], env), /"[^"]*latin1\.json" is not valid UTF-8 text/, 2);
    // YAML flow starting with `{` is YAML: an empty List is a valid no-op.
    const flow = await inProcess(["import", "-"], env, "{apiVersion: v1, kind: List, items: []}");
    assert.equal(flow.code, 0, flow.stderr);
  });

  test("with a registry configured, the store commands refuse a cluster outside it (the API's rule)", async () => {
    const env = { ...baseEnv(), CLUSTERS: JSON.stringify([{ name: "prod", region: "us-east-1" }]) };
    for (const args of [
      ["list"],
      ["history", "demo"],
      ["get", "manifest", "demo"],
      ["import", documentPath],
      ["list", "--cluster", "staging"],
    ]) {
      assertOneLineError(await inProcess(args, env), /^Error: unknown cluster "(local|staging)" \(known: prod\)$/, 1);
    }
    const listed = await inProcess(["list", "--cluster", "prod", "-A", "-o", "json"], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout, "[]\n");
    // Without CLUSTERS / CLUSTERS_FILE (the embedded/local mode), any cluster name is the store's to answer.
    assert.equal((await inProcess(["list", "--cluster", "staging"], baseEnv())).code, 0);
  });

  test("an unreachable endpoint and a bad configuration fail fast with a clear line", async () => {
    const port = await freeLoopbackPort();
    const down = { ...baseEnv(), AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${port}` };
    const [unreachable, badUrl, badTable] = await Promise.all([
      cli(["list"], down),
      inProcess(["list"], { ...baseEnv(), AWS_ENDPOINT_URL_DYNAMODB: "not a url" }),
      inProcess(["list"], { ...baseEnv(), RELEASES_TABLE: "x" }),
    ]);
    assertOneLineError(
      unreachable,
      new RegExp(`cannot reach DynamoDB at http://127\\.0\\.0\\.1:${port}: connection refused`),
      1,
    );
    assertOneLineError(badUrl, /AWS_ENDPOINT_URL_DYNAMODB "not a url" is not a URL/);
    assertOneLineError(badTable, /RELEASES_TABLE "x" is not a DynamoDB table name/);
  });
});

describe("embedded default (no endpoint, no AWS credentials)", () => {
  test("starts DynamoDB Local on its data folder, creates the table, keeps data across (concurrent) runs", async () => {
    const dataDir = join(workDir, "embedded-data");
    const env = { PATH: process.env.PATH, HOME: workDir, HELM_STATUS_DATA_DIR: dataDir };
    const imported = await cli(["import", "-"], env, JSON.stringify(encodeHelmSecret(v2)));
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /imported 1/);
    // Two runs at once share the data folder one after the other (two engines on one file would fail).
    const [listed, history] = await Promise.all([cli(["list"], env), cli(["history", "demo"], env)]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout.split("\n")[1], /^demo\tdefault\s*\t2 /);
    assert.equal(history.code, 0, history.stderr);
    assert.match(history.stdout.split("\n")[1], /^2 +\tWed Dec {2}2 15:02:00 2026\tdeployed/);

    // A server (npm start) holding the folder: the CLI uses its engine and leaves it running.
    const server = await startDynamoDbLocal({ dataDir });
    try {
      const viaServer = await cli(["list", "-o", "json"], env);
      assert.equal(viaServer.code, 0, viaServer.stderr);
      assert.equal(JSON.parse(viaServer.stdout)[0].name, "demo");
      assert.equal((await fetch(server.endpoint)).status, 400, "the server's engine still answers");
    } finally {
      await server.stop();
    }
  });
});
