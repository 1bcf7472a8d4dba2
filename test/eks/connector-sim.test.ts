/**
 * End to end against the simulated EKS (one simulator for the whole file): registry ->
 * (AssumeRole) -> DescribeCluster -> token -> GET /version through client-node with TLS
 * verified against the cluster's CA, plus the failures the simulator can produce for real.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import type { ClusterAccess, ClusterEntry } from "../../shared/clusters/connector.ts";
import {
  ClusterAccessDeniedError,
  ClusterNotActiveError,
  ClusterUnreachableError,
  UnknownClusterError,
} from "../../shared/clusters/errors.ts";
import { parseClusterRegistry } from "../../shared/clusters/registry.ts";
import { defaultEksClientFactory, type EksClientFactory } from "../../shared/eks/aws-calls.ts";
import { createEksConnector, type EksConnectorOptions } from "../../shared/eks/connector.ts";
import { createEksToken, decodeEksToken } from "../../shared/eks/token.ts";
import { ConnectionPools } from "../../shared/kube/http.ts";
import { ClusterLimit } from "../../shared/kube/limiter.ts";
import { KubeSession } from "../../shared/kube/session.ts";

const MINUTE = 60_000;
let sim: SimulatedEks;
let registry: ClusterEntry[];

before(async () => {
  sim = await startSimulatedEks({
    clusters: [
      { name: "alpha", region: "us-east-1" },
      { name: "beta", region: "eu-west-1" },
    ],
  });
  // Through the real parser, as CLUSTERS would give it.
  registry = parseClusterRegistry(JSON.stringify(sim.registryEntries()), "CLUSTERS");
});

after(async () => {
  await sim?.stop();
});

/** A connector on the simulator's keys (never ~/.aws), counting DescribeCluster calls and signings. */
function connect(overrides: Partial<EksConnectorOptions> = {}) {
  const counts = { describe: 0, sign: 0 };
  const real = defaultEksClientFactory(5000);
  const eksClientFactory: EksClientFactory = (entry, credentials) => {
    const client = real(entry, credentials);
    return {
      send(command, options) {
        counts.describe++;
        return client.send(command, options);
      },
    };
  };
  const connector = createEksConnector({
    registry,
    credentials: async () => sim.credentials,
    eksClientFactory,
    requestTimeoutMs: 5000,
    ...overrides,
    signToken: (input) => {
      counts.sign++;
      return (overrides.signToken ?? createEksToken)(input);
    },
  });
  return { connector, counts };
}

/** GET /version through the product's request path with the connector's access (its own pool per call). */
const versionPools = new ConnectionPools();
let versionCalls = 0;
after(() => versionPools.close());
async function serverVersion(access: ClusterAccess): Promise<string> {
  const requester = await versionPools.requester(`version-${versionCalls++}`, access);
  const reply = await requester.get("/version", "application/json", AbortSignal.timeout(10_000));
  if (reply.status !== 200) throw new Error(`GET /version answered ${reply.status}`);
  return (JSON.parse(reply.body) as { gitVersion: string }).gitVersion;
}
const tokenOf = (access: ClusterAccess) => access.headers.authorization?.replace(/^Bearer /, "");

const entryOf = (name: string) => registry.find((entry) => entry.name === name)!;

test("registry -> DescribeCluster -> token -> GET /version on two clusters in two regions", async () => {
  const { connector, counts } = connect();
  assert.deepEqual(connector.list(), [
    { name: "alpha", region: "us-east-1" },
    { name: "beta", region: "eu-west-1" },
  ]);
  for (const name of ["alpha", "beta"]) {
    const access = await connector.access(name);
    assert.equal(access.server, sim.cluster(name).server);
    assert.equal(access.ca, Buffer.from(sim.cluster(name).caData, "base64").toString("utf8"));
    assert.match(await serverVersion(access), /^v1\.\d+\.\d+-eks-/);
  }
  assert.deepEqual(counts, { describe: 2, sign: 2 });
});

test("TLS is verified: alpha's server with beta's CA is refused", async () => {
  const { connector } = connect();
  const good = await connector.access("alpha");
  const forged: ClusterAccess = { ...good, ca: Buffer.from(sim.cluster("beta").caData, "base64").toString("utf8") };
  await assert.rejects(serverVersion(forged), (error: Error) => {
    assert.match(String((error.cause as Error)?.message ?? error.message), /unable to verify the first certificate/);
    return true;
  });
});

test("10 concurrent callers cause one DescribeCluster and one signing", async () => {
  const { connector, counts } = connect();
  const configs = await Promise.all(Array.from({ length: 10 }, () => connector.access("alpha")));
  assert.ok(configs.every((config) => config === configs[0]));
  assert.deepEqual(counts, { describe: 1, sign: 1 });
  assert.match(await serverVersion(configs[0]), /-eks-/);
});

test("a token is re-signed after its 14-minute window, and the new one is accepted", async () => {
  let offset = -(14 * MINUTE + 30_000); // signed 14.5 minutes ago: still honoured for 30 s
  const { connector, counts } = connect({ clock: { now: () => new Date(Date.now() + offset) } });
  const old = await connector.access("alpha");
  assert.match(await serverVersion(old), /-eks-/);
  offset += 13 * MINUTE; // 13 minutes after that signing: reused
  assert.equal(await connector.access("alpha"), old);
  offset = 0;
  const fresh = await connector.access("alpha");
  assert.notEqual(fresh, old);
  assert.match(await serverVersion(fresh), /-eks-/);
  assert.deepEqual(counts, { describe: 1, sign: 2 });
});

test("a 401 triggers exactly one refresh: the status engine's session invalidates once and retries once", async () => {
  // The first token is signed 16 minutes in the past, so the API server answers 401.
  let offset = -16 * MINUTE;
  const { connector, counts } = connect({
    clock: { now: () => new Date(Date.now() + offset) },
    signToken: async (input) => {
      const token = await createEksToken(input);
      offset = 0; // every later signing is current
      return token;
    },
  });
  const pools = new ConnectionPools();
  const clusterLimit = new ClusterLimit({ maxInFlight: 8 });
  const session = new KubeSession({ cluster: "alpha", connector, pools, clusterLimit, maxAttempts: 1 });
  try {
    const result = await session.request("/version", "application/json");
    assert.equal(result.kind, "response");
    assert.equal(result.kind === "response" && result.response.status, 200);
    assert.equal(session.counters.reauthentications, 1);
    assert.deepEqual(counts, { describe: 1, sign: 2 });
  } finally {
    session.close();
    await pools.close();
  }
});

test("a 401 that persists after the refresh is reported, not retried again", async () => {
  const { connector, counts } = connect({ clock: { now: () => new Date(Date.now() - 16 * MINUTE) } });
  const pools = new ConnectionPools();
  const clusterLimit = new ClusterLimit({ maxInFlight: 8 });
  const session = new KubeSession({ cluster: "alpha", connector, pools, clusterLimit, maxAttempts: 3 });
  try {
    const result = await session.request("/version", "application/json");
    assert.equal(result.kind === "response" && result.response.status, 401);
    assert.equal(counts.sign, 2);
    assert.match(session.fatal?.message ?? "", /rejected the credentials \(401 Unauthorized, also with fresh ones\)/);
  } finally {
    session.close();
    await pools.close();
  }
});

test("with a roleArn, the role is assumed (with its external id) and its keys sign the token", async () => {
  const roleArn = `arn:aws:iam::${sim.iam.account}:role/helm-status-reader`;
  sim.iam.addRole(roleArn, { externalId: "ext-42" });
  const { connector } = connect({ registry: [{ ...entryOf("alpha"), roleArn, externalId: "ext-42" }] });
  const kubeConfig = await connector.access("alpha");
  assert.match(await serverVersion(kubeConfig), /-eks-/);
  const url = decodeEksToken(tokenOf(kubeConfig)!);
  assert.equal(
    url.host,
    "sts.us-east-1.amazonaws.com",
    "regional STS host even though AssumeRole went to the simulator",
  );
  assert.ok(url.searchParams.get("X-Amz-Security-Token"), "signed with temporary keys");
  assert.notEqual(url.searchParams.get("X-Amz-Credential")!.split("/")[0], sim.credentials.accessKeyId);
});

test("AssumeRole denied (wrong external id, unknown role) is a ClusterAccessDeniedError", async () => {
  const roleArn = `arn:aws:iam::${sim.iam.account}:role/guarded`;
  sim.iam.addRole(roleArn, { externalId: "right-id" });
  for (const entry of [
    { ...entryOf("alpha"), roleArn, externalId: "wrong-id" },
    { ...entryOf("alpha"), roleArn: `arn:aws:iam::${sim.iam.account}:role/no-such-role` },
  ]) {
    const { connector, counts } = connect({ registry: [entry] });
    await assert.rejects(connector.access("alpha"), (error: unknown) => {
      assert.ok(error instanceof ClusterAccessDeniedError, String(error));
      assert.match(
        error.message,
        /^AssumeRole arn:aws:iam::\d+:role\/[\w-]+ for cluster "alpha" was denied: AccessDenied/,
      );
      assert.ok(error.cause);
      return true;
    });
    assert.equal(counts.sign, 0);
  }
});

test("DescribeCluster denied by IAM is a ClusterAccessDeniedError", async () => {
  const user = sim.iam.users().find((u) => u.credentials.accessKeyId === sim.credentials.accessKeyId)!;
  sim.iam.denyAction(user.arn, "eks:DescribeCluster");
  try {
    const { connector } = connect();
    await assert.rejects(connector.access("beta"), (error: unknown) => {
      assert.ok(error instanceof ClusterAccessDeniedError, String(error));
      assert.match(
        error.message,
        /DescribeCluster for cluster "beta" was denied: AccessDeniedException: .*not authorized/,
      );
      return true;
    });
  } finally {
    sim.iam.allowAction(user.arn, "eks:DescribeCluster");
  }
});

test("a cluster that is not ACTIVE is a ClusterNotActiveError, and it is not cached", async () => {
  const { connector } = connect();
  sim.cluster("beta").setStatus("CREATING");
  try {
    await assert.rejects(connector.access("beta"), (error: unknown) => {
      assert.ok(error instanceof ClusterNotActiveError);
      assert.equal(error.message, 'cluster "beta" is CREATING, not ACTIVE: its API server cannot be used now');
      return true;
    });
  } finally {
    sim.cluster("beta").setStatus("ACTIVE");
  }
  assert.match(await serverVersion(await connector.access("beta")), /-eks-/);
});

test("a registered cluster that EKS does not know, and an unknown one", async () => {
  const { connector, counts } = connect({ registry: [...registry, { ...entryOf("alpha"), name: "gamma" }] });
  await assert.rejects(connector.access("gamma"), (error: unknown) => {
    assert.ok(error instanceof ClusterUnreachableError);
    assert.match(
      error.message,
      /^cluster "gamma" does not exist in EKS region us-east-1 \(DescribeCluster at http:\/\/127\.0\.0\.1:\d+: ResourceNotFoundException/,
    );
    return true;
  });
  const before = counts.describe;
  await assert.rejects(connector.access("delta"), UnknownClusterError);
  assert.equal(counts.describe, before, "no call for a cluster outside the registry");
});

test("a registry entry with endpoint + certificateAuthority skips DescribeCluster", async () => {
  const facts = await connect().connector.describe("alpha");
  const [alpha] = registry;
  // EKS itself unreachable: only the registry's facts can make this work.
  const entry = parseClusterRegistry(
    JSON.stringify([
      {
        ...alpha,
        eksEndpoint: "http://127.0.0.1:9",
        endpoint: facts.endpoint,
        certificateAuthority: { data: facts.caData },
      },
    ]),
    "CLUSTERS",
  );
  const { connector, counts } = connect({ registry: entry });
  assert.match(await serverVersion(await connector.access("alpha")), /^v1\./);
  assert.equal(counts.describe, 0);
});
