/**
 * The AWS calls a fleet costs (issue #36, docs/scale.md "Fixes"), counted through the SDK client factories the
 * connector takes: DescribeCluster per cluster across cold starts (the facts kept in a store), AssumeRole per
 * account (not per cluster), a revoked account's failure answering for its clusters, throttling retried by the
 * shared policy without holding up other clusters, and the endpoint asked again when the API server's
 * certificate or address stops working. Throttling and revocation are stubbed: the error branches of AWS the
 * simulator does not produce on demand here.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { DescribeClusterCommand } from "@aws-sdk/client-eks";
import { AssumeRoleCommand, type AssumeRoleCommandOutput } from "@aws-sdk/client-sts";
import type { ClusterEntry } from "../../shared/clusters/connector.ts";
import { ClusterAccessDeniedError } from "../../shared/clusters/errors.ts";
import type { EksClientFactory, StsClientFactory } from "../../shared/eks/aws-calls.ts";
import { createEksConnector, type EksConnectorOptions } from "../../shared/eks/connector.ts";
import { memoryClusterFacts } from "../../shared/eks/facts-store.ts";

const MINUTE = 60_000;
const keys = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
const CA = Buffer.from("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").toString("base64");

class ManualClock {
  time = Date.parse("2026-12-04T12:00:00Z");
  now = () => new Date(this.time);
  advance(ms: number) {
    this.time += ms;
  }
}

/** `accounts` accounts of `perAccount` clusters each; every account's clusters share one role and external id. */
function fleet(accounts: number, perAccount: number): ClusterEntry[] {
  const entries: ClusterEntry[] = [];
  for (let a = 0; a < accounts; a++) {
    const account = String(100000000000 + a);
    for (let c = 0; c < perAccount; c++) {
      entries.push({
        name: `c${a}-${c}`,
        region: "us-east-1",
        roleArn: `arn:aws:iam::${account}:role/reader`,
        externalId: `ext-${a}`,
      });
    }
  }
  return entries;
}

interface Behaviour {
  /** Answers DescribeCluster for this cluster: throw to fail, a string is the endpoint's host. */
  describe?: (cluster: string, call: number) => Promise<string | undefined>;
  /** Throws for a revoked role. */
  assume?: (roleArn: string) => Promise<void>;
}

/** Counting stub clients; one `counts` shared by every connector made from it (one per cold start). */
function aws(clock: ManualClock, behaviour: Behaviour = {}) {
  const counts = { describe: 0, assume: 0, describeOf: new Map<string, number>() };
  const eksClientFactory: EksClientFactory = (entry) => ({
    async send(command) {
      assert.ok(command instanceof DescribeClusterCommand);
      counts.describe++;
      const call = (counts.describeOf.get(entry.name) ?? 0) + 1;
      counts.describeOf.set(entry.name, call);
      const host = (await behaviour.describe?.(entry.name, call)) ?? `${entry.name}.eks.test`;
      return {
        $metadata: {},
        cluster: {
          name: entry.name,
          status: "ACTIVE",
          endpoint: `https://${host}`,
          certificateAuthority: { data: CA },
        },
      };
    },
  });
  const stsClientFactory: StsClientFactory = () => ({
    async send(command): Promise<AssumeRoleCommandOutput> {
      assert.ok(command instanceof AssumeRoleCommand);
      counts.assume++;
      await behaviour.assume?.(String(command.input.RoleArn));
      return {
        $metadata: {},
        Credentials: {
          AccessKeyId: `ASIA${counts.assume}`,
          SecretAccessKey: "role-secret",
          SessionToken: "role-session",
          Expiration: new Date(clock.time + 60 * MINUTE),
        },
      };
    },
  });
  const connect = (registry: ClusterEntry[], options: Partial<EksConnectorOptions> = {}) =>
    createEksConnector({
      registry,
      clock,
      credentials: async () => keys,
      eksClientFactory,
      stsClientFactory,
      ...options,
    });
  return { counts, connect };
}

const accessAll = (connector: { access(c: string): Promise<unknown> }, registry: ClusterEntry[]) =>
  Promise.allSettled(registry.map((entry) => connector.access(entry.name)));

test("3 audit runs over 20 clusters, each on a cold start: 20 DescribeCluster calls, not 60", async () => {
  const clock = new ManualClock();
  const { counts, connect } = aws(clock);
  const registry = fleet(4, 5);
  const facts = memoryClusterFacts();
  for (let run = 0; run < 3; run++) {
    const results = await accessAll(connect(registry, { facts }), registry);
    assert.ok(results.every((r) => r.status === "fulfilled"));
    clock.advance(5 * MINUTE);
  }
  assert.equal(counts.describe, 20, "one DescribeCluster per cluster per hour (before this fix: 60)");
  assert.equal(facts.items.size, 20);
  assert.doesNotMatch(JSON.stringify([...facts.items.values()]), /arn:/, "no ARN is kept");
  // An hour after they were fetched, the kept facts are asked again: once per cluster.
  clock.advance(60 * MINUTE);
  await accessAll(connect(registry, { facts }), registry);
  assert.equal(counts.describe, 40);
});

test("one AssumeRole per account, shared by its clusters (5 accounts x 10 clusters: 5 calls, not 50)", async () => {
  const clock = new ManualClock();
  const { counts, connect } = aws(clock);
  const registry = fleet(5, 10);
  const connector = connect(registry);
  const results = await accessAll(connector, registry);
  assert.ok(results.every((r) => r.status === "fulfilled"));
  assert.equal(counts.assume, 5, "before this fix: 50");
  // Still shared when the next sweep re-signs every token 14 minutes later (the sessions last an hour).
  clock.advance(15 * MINUTE);
  await accessAll(connector, registry);
  assert.equal(counts.assume, 5);
  // Near expiry (5 minutes before), each account asks once more.
  clock.advance(41 * MINUTE);
  await accessAll(connector, registry);
  assert.equal(counts.assume, 10);
});

test("a revoked account: its clusters fail with their own names after one AssumeRole; other accounts unaffected", async () => {
  const clock = new ManualClock();
  const revoked = "arn:aws:iam::100000000001:role/reader";
  const { counts, connect } = aws(clock, {
    async assume(roleArn) {
      if (roleArn === revoked) {
        throw Object.assign(new Error("not authorized to perform: sts:AssumeRole"), { name: "AccessDenied" });
      }
    },
  });
  const registry = fleet(3, 10);
  const connector = connect(registry);
  const results = await accessAll(connector, registry);
  const failed = results.flatMap((r, i) => (r.status === "rejected" ? [[registry[i].name, r.reason]] : []));
  assert.deepEqual(
    failed.map(([name]) => name),
    registry.filter((e) => e.roleArn === revoked).map((e) => e.name),
  );
  for (const [name, reason] of failed) {
    assert.ok(reason instanceof ClusterAccessDeniedError);
    assert.match(reason.message, new RegExp(`cluster "${name}"`), "each cluster's error names that cluster");
  }
  assert.equal(counts.assume, 3, "one call per account (before this fix: 10 for the revoked one, 30 in all)");
  // Asked again (one call) once the failure's hold is over.
  await accessAll(connector, registry);
  assert.equal(counts.assume, 3);
  clock.advance(MINUTE);
  await accessAll(connector, registry);
  assert.equal(counts.assume, 4);
});

test("a throttled DescribeCluster is retried by the shared policy while another cluster goes on", async () => {
  const clock = new ManualClock();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const { counts, connect } = aws(clock, {
    async describe(cluster, call) {
      if (cluster !== "c0-0") return undefined;
      if (call === 1) await gate;
      if (call <= 2) throw Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException" });
      return undefined;
    },
  });
  const registry = fleet(1, 2);
  const connector = connect(registry);
  const throttled = connector.access("c0-0");
  // The other cluster is served while the first one waits on EKS.
  assert.equal((await connector.access("c0-1")).server, "https://c0-1.eks.test");
  release();
  assert.equal((await throttled).server, "https://c0-0.eks.test");
  assert.equal(counts.describeOf.get("c0-0"), 3, "two throttled attempts, then the answer");
});

test("throttled past the retries after the hour: the last known endpoint keeps serving", async () => {
  const clock = new ManualClock();
  let throttle = false;
  const { counts, connect } = aws(clock, {
    async describe() {
      if (throttle) throw Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException" });
      return undefined;
    },
  });
  const registry = fleet(1, 1);
  const connector = connect(registry);
  await connector.access("c0-0");
  throttle = true;
  clock.advance(61 * MINUTE);
  assert.equal((await connector.access("c0-0")).server, "https://c0-0.eks.test");
  assert.equal(counts.describe, 4, "one answered, three throttled");
  // Not asked again for a minute.
  clock.advance(30_000);
  await connector.describe("c0-0");
  assert.equal(counts.describe, 4);
});

test("a certificate or address that stops working: DescribeCluster again (at most every 5 minutes)", async () => {
  const clock = new ManualClock();
  let host = "old.eks.test";
  const { counts, connect } = aws(clock, { describe: async () => host });
  const facts = memoryClusterFacts();
  const registry = fleet(1, 1);
  const connector = connect(registry, { facts });
  assert.equal((await connector.access("c0-0")).server, "https://old.eks.test");
  // Just fetched: a failure says nothing new.
  connector.invalidate("c0-0", "endpoint");
  await connector.access("c0-0");
  assert.equal(counts.describe, 1);
  host = "new.eks.test";
  clock.advance(6 * MINUTE);
  connector.invalidate("c0-0", "endpoint");
  // The copy in the store is the one that failed: not trusted, EKS is asked.
  assert.equal((await connector.access("c0-0")).server, "https://new.eks.test");
  assert.equal(counts.describe, 2);
  assert.equal(facts.items.get("c0-0")?.endpoint, "https://new.eks.test");
  // A 401 keeps the endpoint.
  clock.advance(6 * MINUTE);
  connector.invalidate("c0-0");
  await connector.access("c0-0");
  assert.equal(counts.describe, 2);
});

test("a cluster down, not moved: doubted every minute for 2 hours, DescribeCluster backs off (6 calls, not 25)", async () => {
  const clock = new ManualClock();
  const { counts, connect } = aws(clock);
  const registry = fleet(1, 1);
  const connector = connect(registry, { facts: memoryClusterFacts() });
  await connector.access("c0-0");
  for (let minute = 1; minute <= 120; minute++) {
    clock.advance(MINUTE);
    // What the kube session does when the API server refuses the connection.
    connector.invalidate("c0-0", "endpoint");
    await connector.access("c0-0");
  }
  // Asked again 5, 10, 20, 40 and 60 minutes after each answer that named the same endpoint.
  assert.equal(counts.describe, 6);
});

test("a kept copy the API server contradicts is described again at once, however young", async () => {
  const clock = new ManualClock();
  let host = "old.eks.test";
  const { counts, connect } = aws(clock, { describe: async () => host });
  const facts = memoryClusterFacts();
  const registry = fleet(1, 1);
  await connect(registry, { facts }).access("c0-0");
  // A minute later the endpoint moved (a simulator restarted on new ports); a cold start reads the kept copy.
  host = "new.eks.test";
  clock.advance(MINUTE);
  const cold = connect(registry, { facts });
  assert.equal((await cold.access("c0-0")).server, "https://old.eks.test");
  cold.invalidate("c0-0", "endpoint");
  assert.equal((await cold.access("c0-0")).server, "https://new.eks.test");
  assert.equal(counts.describe, 2);
});

test("a kept copy described for another cluster of the same name (another region or account) is not used", async () => {
  const clock = new ManualClock();
  const { counts, connect } = aws(clock, { describe: async (cluster, call) => `${cluster}-${call}.eks.test` });
  const facts = memoryClusterFacts();
  const [entry] = fleet(1, 1);
  assert.equal((await connect([entry], { facts }).access("c0-0")).server, "https://c0-0-1.eks.test");
  // The registry now names a cluster of that name in another region: the next cold start asks EKS.
  clock.advance(MINUTE);
  const moved = connect([{ ...entry, region: "eu-west-1" }], { facts });
  assert.equal((await moved.access("c0-0")).server, "https://c0-0-2.eks.test");
  // And in another account (same region): asked again too.
  clock.advance(MINUTE);
  const otherAccount = connect([{ ...entry, region: "eu-west-1", roleArn: "arn:aws:iam::999999999999:role/reader" }], {
    facts,
  });
  assert.equal((await otherAccount.access("c0-0")).server, "https://c0-0-3.eks.test");
  // The same cluster again: the kept copy serves.
  clock.advance(MINUTE);
  assert.equal(
    (
      await connect([{ ...entry, region: "eu-west-1", roleArn: "arn:aws:iam::999999999999:role/reader" }], {
        facts,
      }).access("c0-0")
    ).server,
    "https://c0-0-3.eks.test",
  );
  assert.equal(counts.describe, 3);
  assert.doesNotMatch(JSON.stringify([...facts.items.values()]), /arn:/, "no ARN is kept");
});
