/** The history CLI commands in-process (bin/lib/run.ts), on DynamoDB Local and the simulated EKS through the registry. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { PassThrough } from "node:stream";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { runCommand } from "../../bin/lib/run.ts";
import { DEMO_CLUSTERS } from "../../local/demo/releases.ts";
import { seedDemo } from "../../local/demo/seed.ts";
import { type DynamoDbLocal, startDynamoDbLocal } from "../../local/dynamodb-local.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { openReleaseStore } from "../../shared/store/config.ts";

const hasJava = spawnSync("java", ["-version"]).status === 0;
let dynamo: DynamoDbLocal;
let sim: SimulatedEks;
let env: NodeJS.ProcessEnv;

before(async () => {
  if (!hasJava) return;
  [dynamo, sim] = await Promise.all([
    startDynamoDbLocal(),
    startSimulatedEks({ clusters: DEMO_CLUSTERS.map((c) => ({ name: c.name, region: c.region })), seed: 9 }),
  ]);
  env = {
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: sim.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: sim.credentials.secretAccessKey,
    CLUSTERS: JSON.stringify(sim.registryEntries()),
    RELEASES_TABLE: `cli-hist-${process.pid}`,
    SNAPSHOTS_TABLE: `cli-snap-${process.pid}`,
  };
  assert.equal((await cli(["init"])).code, 0);
  await seedDemo(
    openReleaseStore({
      region: "us-east-1",
      endpoint: dynamo.endpoint,
      tableName: env.RELEASES_TABLE!,
      credentials: sim.credentials,
    }),
    sim,
  );
});

after(async () => {
  await Promise.all([dynamo?.stop(), sim?.stop()]);
});

async function cli(args: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk) => (out += chunk));
  stderr.on("data", (chunk) => (err += chunk));
  const file = fileURLToPath(new URL(`../../bin/commands/${args[0]}.ts`, import.meta.url));
  const code = await runCommand(file, args.slice(1), { stdout, stderr, stdin: new PassThrough(), env });
  return { code, stdout: out, stderr: err };
}

test("audit, snapshots, show, diff, fleet from the CLI", { skip: !hasJava && "no java" }, async () => {
  const first = await cli(["audit"]);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^CLUSTER\s+NAMESPACE\s+NAME\s+HEALTH\s+SNAPSHOT\s+ID$/m);
  assert.match(first.stdout, /demo-eu\s+shop\s+api\s+Failed\s+created\s+demo-eu\.shop\.api@\d{8}T\d{6}Z-cli/);
  assert.match(first.stdout, /audit \d{8}T\d{6}Z-cli: 3\/3 releases, \d+ not Current/);
  // The api release recovers; a second pass (a later second: run ids are per second) records the change.
  const api = (await import("../../local/demo/releases.ts"))
    .demoReleases()
    .find((d) => d.revisions.at(-1)!.name === "api")!;
  sim.cluster("demo-eu").materialize(api.revisions.at(-1)!.manifest, { namespace: "shop" });
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const second = await cli(["audit", "-o", "json"]);
  assert.equal(second.code, 0, second.stderr);
  assert.equal((JSON.parse(second.stdout) as { run: { changed: number } }).run.changed, 1);

  const list = await cli(["snapshots", "api", "-n", "shop", "--cluster", "demo-eu"]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^FIRST SEEN\s+LAST SEEN\s+SEEN\s+REVISION\s+HEALTH\s+CHANGES\s+ID$/m);
  assert.match(list.stdout, /Current\s+health Failed -> Current; .*v1\/ConfigMap api-config back/);
  const json = JSON.parse((await cli(["snapshots", "api", "-n", "shop", "--cluster", "demo-eu", "-o", "json"])).stdout);
  const [latest, earliest] = json.snapshots as { id: string }[];
  const shown = await cli(["snapshots", "show", earliest.id]);
  assert.match(shown.stdout, /^NAME: api$/m);
  assert.match(shown.stdout, /CrashLoopBackOff/);
  const diff = await cli(["snapshots", "diff", latest.id]);
  assert.match(diff.stdout, /^changes .* -> .*:\n {2}health Failed -> Current$/m);
  assert.match(diff.stdout, /^-.*CrashLoopBackOff/m);
  const fleet = await cli(["fleet", "--health", "Failed,Unknown,NotFound"]);
  assert.equal(fleet.code, 0, fleet.stderr);
  assert.doesNotMatch(fleet.stdout, /\bapi\b/);

  const bad = await cli(["snapshots", "show", "nonsense"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^Error: invalid snapshot id "nonsense"/);
  const badSince = await cli(["snapshots", "api", "-n", "shop", "--cluster", "demo-eu", "--since", "soon"]);
  assert.equal(badSince.code, 2);
  assert.match(badSince.stderr, /since "soon" is not a time/);
});

test("status --at, --against and reliability from the CLI, on the history the test above wrote", {
  skip: !hasJava && "no java",
}, async () => {
  const release = ["api", "-n", "shop", "--cluster", "demo-eu"];
  const json = JSON.parse((await cli(["snapshots", ...release, "-o", "json"])).stdout);
  const [latest, earliest] = json.snapshots as { id: string; lastSeenAt: string; firstSeenAt: string }[];
  // Between the two audits: what the earlier one saw, with a first line naming it.
  const between = new Date(Date.parse(earliest.lastSeenAt) + 200).toISOString();
  const then = await cli(["status", ...release, "--at", between]);
  assert.equal(then.code, 0, then.stderr);
  const [header, ...text] = then.stdout.split("\n");
  assert.match(header, new RegExp(`^SNAPSHOT: ${earliest.id.replace(/[.]/g, "\\.")} as of ${between} \\(first seen `));
  assert.match(text.join("\n"), /^NAME: api$/m);
  assert.match(text.join("\n"), /CrashLoopBackOff/);
  const doc = JSON.parse((await cli(["status", ...release, "--at", between, "-o", "json"])).stdout);
  assert.equal(doc.snapshot.id, earliest.id);
  assert.match(doc.text, /CrashLoopBackOff/);
  const diff = await cli(["status", ...release, "--at", latest.firstSeenAt, "--against", between]);
  assert.match(diff.stdout, /^changes .* -> .*:\n {2}health Failed -> Current$/m);
  const future = await cli(["status", ...release, "--at", "2999-01-01T00:00:00Z"]);
  assert.equal(future.code, 2);
  assert.match(future.stderr, /is in the future/);
  const before = await cli(["status", ...release, "--at", "2000-01-01T00:00:00Z"]);
  assert.equal(before.code, 1);
  assert.match(before.stderr, /past the history's retention/);

  const report = await cli(["reliability", ...release, "--since", "1h"]);
  assert.equal(report.code, 0, report.stderr);
  assert.match(report.stdout, /^RELEASE\s+shop\/api on demo-eu$/m);
  assert.match(report.stdout, /^INCIDENTS\s+1 \(1 recovered, 0 open\)/m);
  const fleet = JSON.parse((await cli(["reliability", "--cluster", "demo-eu", "-o", "json"])).stdout);
  assert.equal(fleet.scope.cluster, "demo-eu");
  assert.ok(fleet.releases >= 2);
  assert.equal(fleet.incidents.count, 1);
  const backwards = await cli(["reliability", ...release, "--since", "1h", "--until", "2h"]);
  assert.equal(backwards.code, 2);
  assert.match(backwards.stderr, /is not before until/);
  const unknown = await cli(["reliability", "nope", "-n", "shop", "--cluster", "demo-eu"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /release: not found/);
});
