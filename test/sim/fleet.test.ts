/**
 * The fleet simulator (issue #36): clusters over several accounts, each with its own endpoint, CA and token
 * check, reached through the product's EKS connector (AssumeRole of the account's role, DescribeCluster,
 * presigned token); DescribeCluster and AssumeRole throttled per account like AWS ("Rate exceeded").
 */
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { request } from "node:https";
import { after, before, describe, test } from "node:test";
import { DescribeClusterCommand, EKSClient } from "@aws-sdk/client-eks";
import { AssumeRoleCommand, STSClient } from "@aws-sdk/client-sts";
import { AwsRateLimiter } from "../../local/sim/aws/rate-limit.ts";
import { makeFastServerCertificates } from "../../local/sim/fast-certs.ts";
import { fleetAccount, fleetRoleArn, fleetSimOptions } from "../../local/sim/fleet.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import type { ClusterAccess } from "../../shared/clusters/connector.ts";
import { createEksConnector } from "../../shared/eks/connector.ts";

/** One GET with the access's CA and headers; the status, or the TLS error's code. */
function get(server: string, access: ClusterAccess, path = "/api/v1/namespaces"): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(`${server}${path}`, { ca: access.ca, headers: access.headers, timeout: 5000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", (error) => resolve((error as NodeJS.ErrnoException).code ?? error.message));
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.end();
  });
}

describe("fleet simulator: per-cluster endpoints over accounts", () => {
  let sim: SimulatedEks;
  before(async () => {
    sim = await startSimulatedEks(fleetSimOptions({ clusters: 4, accounts: 2 }));
  });
  after(() => sim?.stop());

  test("node-made certificates: a CA and a 127.0.0.1 server certificate it signed", () => {
    const made = makeFastServerCertificates("x");
    const ca = new X509Certificate(made.caPem);
    const server = new X509Certificate(made.certPem);
    assert.equal(ca.ca, true);
    assert.equal(server.ca, false);
    assert.ok(server.checkIssued(ca) && server.verify(ca.publicKey));
    assert.match(server.subjectAltName ?? "", /IP Address:127\.0\.0\.1/);
  });

  test("each cluster has its own port, CA and token; its role's account is the caller", async () => {
    const entries = sim.registryEntries();
    assert.deepEqual(
      entries.map((e) => e.roleArn),
      [0, 1, 0, 1].map((i) => fleetRoleArn(fleetAccount(i))),
    );
    const connector = createEksConnector({ registry: entries, credentials: async () => sim.credentials });
    const [a, b] = sim.clusters();
    assert.notEqual(a.server, b.server);
    assert.notEqual(a.caData, b.caData);
    const accessA = await connector.access(a.name);
    const accessB = await connector.access(b.name);
    assert.equal(accessA.server, a.server);
    assert.equal(await get(a.server, accessA), 200);
    assert.equal(await get(b.server, accessB), 200);
    // What a client read is counted (the fleet bench's bytes).
    assert.ok(b.stats().bytesOut > 100);
    // A's CA does not verify B's server; A's token (signed for A's name) is refused by B.
    assert.equal(await get(b.server, { ...accessA, headers: {} }), "UNABLE_TO_VERIFY_LEAF_SIGNATURE");
    assert.equal(await get(b.server, { ...accessB, headers: accessA.headers }), 401);
    assert.match(b.stats().log.at(-2)?.user ?? "", new RegExp(`^arn:aws:sts::${fleetAccount(1)}:assumed-role/`));
    const calls = sim.aws.stats();
    assert.equal(calls.DescribeCluster.calls, 2);
    assert.deepEqual(Object.keys(calls.AssumeRole.accounts).sort(), [fleetAccount(0), fleetAccount(1)]);
  });

  test("a stopped API server refuses connections; the other clusters still answer", async () => {
    const connector = createEksConnector({ registry: sim.registryEntries(), credentials: async () => sim.credentials });
    const [, , c, d] = sim.clusters();
    const accessC = await connector.access(c.name);
    await c.stopApiServer();
    assert.equal(await get(c.server, accessC), "ECONNREFUSED");
    assert.equal(await get(d.server, await connector.access(d.name)), 200);
  });
});

describe("fleet simulator: DescribeCluster and AssumeRole throttled per account", () => {
  let sim: SimulatedEks;
  before(async () => {
    // A bucket of 2 that refills once per 1,000 s: the third call in a row is throttled, whatever the machine's speed.
    const slow = { perSecond: 0.001, burst: 2 };
    sim = await startSimulatedEks(
      fleetSimOptions({ clusters: 2, accounts: 2, awsRates: { DescribeCluster: slow, AssumeRole: slow } }),
    );
  });
  after(() => sim?.stop());

  const client = <T>(Client: new (config: object) => T, endpoint: string) =>
    new Client({ region: "us-east-1", endpoint, credentials: sim.credentials, maxAttempts: 1 });

  test("DescribeCluster: ThrottlingException 'Rate exceeded' past the bucket, per account; throttleFor blocks all", async () => {
    const eks = client(EKSClient, sim.eksEndpoint);
    const [a, b] = sim.clusters();
    const describe = (name: string) => eks.send(new DescribeClusterCommand({ name }));
    await describe(a.name);
    await describe(a.name);
    await assert.rejects(describe(a.name), (error: Error & { $metadata?: { httpStatusCode?: number } }) => {
      assert.equal(error.name, "ThrottlingException");
      assert.equal(error.message, "Rate exceeded");
      assert.equal(error.$metadata?.httpStatusCode, 429);
      return true;
    });
    // The simulator's admin user is in one account: the bucket is its account's, shared by every cluster.
    await assert.rejects(describe(b.name), { name: "ThrottlingException" });
    const stats = sim.aws.stats().DescribeCluster;
    assert.equal(stats.calls, 4);
    assert.equal(stats.throttled, 2);
    eks.destroy();
  });

  test("AssumeRole: Throttling 'Rate exceeded' per role account", async () => {
    const sts = client(STSClient, sim.stsEndpoint);
    const assume = (account: number) =>
      sts.send(new AssumeRoleCommand({ RoleArn: fleetRoleArn(fleetAccount(account)), RoleSessionName: "fleet-test" }));
    await assume(0);
    await assume(0);
    await assert.rejects(assume(0), { name: "Throttling", message: "Rate exceeded" });
    await assume(1);
    const stats = sim.aws.stats().AssumeRole;
    assert.deepEqual(stats.accounts, {
      [fleetAccount(0)]: { calls: 3, throttled: 1 },
      [fleetAccount(1)]: { calls: 1, throttled: 0 },
    });
    sts.destroy();
  });

  test("a revoked account: AssumeRole of its role is AccessDenied, its sessions' keys stop working", async () => {
    const sts = client(STSClient, sim.stsEndpoint);
    sim.aws.setRates({ AssumeRole: { perSecond: Number.POSITIVE_INFINITY } });
    const role = fleetRoleArn(fleetAccount(1));
    const issued = await sts.send(new AssumeRoleCommand({ RoleArn: role, RoleSessionName: "before-revoke" }));
    const keyId = issued.Credentials?.AccessKeyId ?? "";
    assert.ok(sim.iam.lookupKey(keyId));
    sim.iam.revokeAccount(fleetAccount(1));
    assert.equal(sim.iam.lookupKey(keyId), undefined);
    await assert.rejects(sts.send(new AssumeRoleCommand({ RoleArn: role, RoleSessionName: "after" })), {
      name: "AccessDenied",
    });
    // The other account's role still works.
    await sts.send(new AssumeRoleCommand({ RoleArn: fleetRoleArn(fleetAccount(0)), RoleSessionName: "other" }));
    sts.destroy();
  });

  test("the token bucket refills at its rate, and throttleFor empties it for a while (a clock of its own)", () => {
    let now = 0;
    const limiter = new AwsRateLimiter({ DescribeCluster: { perSecond: 2, burst: 2 } }, () => now);
    assert.deepEqual(
      [1, 2, 3].map(() => limiter.take("DescribeCluster", "a")),
      [true, true, false],
    );
    now += 500;
    assert.equal(limiter.take("DescribeCluster", "a"), true);
    assert.equal(limiter.take("DescribeCluster", "a"), false);
    limiter.throttleFor("DescribeCluster", 60_000);
    now += 59_000;
    assert.equal(limiter.take("DescribeCluster", "b"), false);
    now += 1_001;
    assert.equal(limiter.take("DescribeCluster", "b"), true);
    assert.deepEqual(limiter.stats().DescribeCluster.accounts, {
      a: { calls: 5, throttled: 2 },
      b: { calls: 2, throttled: 1 },
    });
  });
});
