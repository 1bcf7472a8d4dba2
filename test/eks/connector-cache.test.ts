/**
 * The caching and error branches of the EKS connector with stub AWS clients: these are
 * the cases (a denied DescribeCluster, a credential chain that finds nothing, exact
 * clock edges) that the simulated EKS cannot produce on demand. The same flows run
 * against the simulator in connector-sim.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  AccessDeniedException,
  DescribeClusterCommand as Describe,
  type DescribeClusterCommand,
} from "@aws-sdk/client-eks";
import { AssumeRoleCommand, type AssumeRoleCommandOutput } from "@aws-sdk/client-sts";
import type { ClusterAccess, ClusterEntry } from "../../shared/clusters/connector.ts";
import {
  ClusterAccessDeniedError,
  ClusterNotActiveError,
  ClusterUnreachableError,
  UnknownClusterError,
} from "../../shared/clusters/errors.ts";
import type { EksClientFactory, StsClientFactory } from "../../shared/eks/aws-calls.ts";
import { createEksConnector } from "../../shared/eks/connector.ts";
import { createEksToken } from "../../shared/eks/token.ts";

const MINUTE = 60_000;
const keys = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };

class ManualClock {
  time: number;
  constructor(iso = "2026-12-02T12:00:00Z") {
    this.time = Date.parse(iso);
  }
  now = () => new Date(this.time);
  advance(ms: number) {
    this.time += ms;
  }
}

function harness(
  registry: ClusterEntry[],
  options: { status?: string; describeError?: Error; roleLifetimeMs?: number } = {},
) {
  const clock = new ManualClock();
  const counts = { describe: 0, assume: 0, sign: 0, clientsCreated: 0 };
  const logs: { message: string; attributes?: Record<string, unknown> }[] = [];
  const log = (message: string, attributes?: Record<string, unknown>) => logs.push({ message, attributes });
  const eksClientFactory: EksClientFactory = (entry) => {
    counts.clientsCreated++;
    return {
      async send(command: DescribeClusterCommand) {
        assert.ok(command instanceof Describe);
        counts.describe++;
        await new Promise((resolve) => setImmediate(resolve));
        if (options.describeError) throw options.describeError;
        return {
          $metadata: {},
          cluster: {
            name: entry.name,
            status: (options.status ?? "ACTIVE") as "ACTIVE",
            endpoint: `https://${entry.name}.example.test/`,
            certificateAuthority: { data: Buffer.from("-----BEGIN CERTIFICATE-----\n").toString("base64") },
          },
        };
      },
    };
  };
  const stsClientFactory: StsClientFactory = () => {
    counts.clientsCreated++;
    return {
      async send(command: AssumeRoleCommand): Promise<AssumeRoleCommandOutput> {
        assert.ok(command instanceof AssumeRoleCommand);
        counts.assume++;
        return {
          $metadata: {},
          Credentials: {
            AccessKeyId: `ASIAROLE${counts.assume}`,
            SecretAccessKey: "role-secret",
            SessionToken: "role-session",
            Expiration: new Date(clock.time + (options.roleLifetimeMs ?? 60 * MINUTE)),
          },
        };
      },
    };
  };
  const connector = createEksConnector({
    registry,
    clock,
    logger: { debug: log, info: log, warn: log, error: log },
    credentials: async () => keys,
    eksClientFactory,
    stsClientFactory,
    signToken: (input) => {
      counts.sign++;
      return createEksToken(input);
    },
  });
  return { connector, clock, counts, logs };
}

const tokenOf = (access: ClusterAccess) => access.headers.authorization?.replace(/^Bearer /, "");

test("an unknown cluster fails before any client is even created", async () => {
  const { connector, counts } = harness([{ name: "known", region: "us-east-1" }]);
  await assert.rejects(connector.access("nope"), (error: unknown) => {
    assert.ok(error instanceof UnknownClusterError);
    assert.equal(error.kind, "not-found");
    assert.match(error.message, /^unknown cluster "nope" \(known: known\)$/);
    return true;
  });
  assert.deepEqual(counts, { describe: 0, assume: 0, sign: 0, clientsCreated: 0 });
});

test("20 concurrent callers share one DescribeCluster and one signing", async () => {
  const { connector, counts } = harness([{ name: "c1", region: "us-east-1" }]);
  const configs = await Promise.all(Array.from({ length: 20 }, () => connector.access("c1")));
  assert.equal(counts.describe, 1);
  assert.equal(counts.sign, 1);
  assert.ok(configs.every((config) => config === configs[0]));
  assert.equal(configs[0].server, "https://c1.example.test", "trailing slash trimmed");
  assert.match(String(configs[0].ca), /^-----BEGIN CERTIFICATE-----/, "the cluster's own CA, decoded");
  assert.match(tokenOf(configs[0])!, /^k8s-aws-v1\./);
});

test("the kubeconfig is reused for 14 minutes after signing, then re-signed (DescribeCluster still cached)", async () => {
  const { connector, clock, counts } = harness([{ name: "c1", region: "eu-west-1" }]);
  const first = await connector.access("c1");
  clock.advance(14 * MINUTE - 1000);
  assert.equal(await connector.access("c1"), first);
  clock.advance(1000);
  const second = await connector.access("c1");
  assert.notEqual(second, first);
  assert.notEqual(tokenOf(second), tokenOf(first));
  assert.deepEqual([counts.describe, counts.sign], [1, 2]);
});

test("invalidate() after a 401 causes exactly one re-signing, shared by concurrent retries", async () => {
  const { connector, counts } = harness([{ name: "c1", region: "us-east-1" }]);
  const first = await connector.access("c1");
  connector.invalidate("c1");
  const retries = await Promise.all([connector.access("c1"), connector.access("c1")]);
  assert.notEqual(retries[0], first);
  assert.equal(retries[0], retries[1]);
  assert.deepEqual([counts.describe, counts.sign], [1, 2]);
  connector.invalidate("never-used");
});

test("the assumed role is used, cached, and refreshed 5 minutes before it expires", async () => {
  const entry = {
    name: "c1",
    region: "us-east-1",
    roleArn: "arn:aws:iam::123456789012:role/reader",
    externalId: "x-1",
  };
  const { connector, clock, counts, logs } = harness([entry], { roleLifetimeMs: 20 * MINUTE });
  const first = await connector.access("c1");
  assert.match(Buffer.from(tokenOf(first)!.slice(11), "base64url").toString(), /X-Amz-Credential=ASIAROLE1%2F/);
  assert.equal(counts.assume, 1);
  clock.advance(14 * MINUTE);
  await connector.access("c1"); // token expired: re-signed with the same role session (6 min left)
  assert.deepEqual([counts.assume, counts.sign], [1, 2]);
  clock.advance(5 * MINUTE); // kubeconfig reused until a minute before the role expires, then everything is renewed
  const third = await connector.access("c1");
  assert.deepEqual([counts.assume, counts.sign], [2, 3]);
  assert.match(Buffer.from(tokenOf(third)!.slice(11), "base64url").toString(), /X-Amz-Credential=ASIAROLE2%2F/);
  const text = JSON.stringify(logs);
  assert.doesNotMatch(text, /k8s-aws-v1|role-secret|role-session|BEGIN CERT/, "logs carry names and expiry only");
  assert.match(text, /"cluster":"c1"/);
});

test("a kubeconfig is not reused past a minute before its signing credentials expire", async () => {
  const entry = { name: "c1", region: "us-east-1", roleArn: "arn:aws:iam::123456789012:role/reader" };
  // A role session of 10 minutes: refreshed at once (under the 5-minute margin after 5 min).
  const { connector, clock, counts } = harness([entry], { roleLifetimeMs: 10 * MINUTE });
  const first = await connector.access("c1");
  clock.advance(9 * MINUTE - 1);
  assert.equal(await connector.access("c1"), first);
  clock.advance(1);
  assert.notEqual(await connector.access("c1"), first);
  assert.equal(counts.assume, 2);
});

test("DescribeCluster AccessDenied is a ClusterAccessDeniedError with the cause, and is not cached", async () => {
  const denied = new AccessDeniedException({
    message: "User: arn:aws:sts::1:assumed-role/x is not authorized to perform: eks:DescribeCluster",
    $metadata: { httpStatusCode: 403 },
  });
  const { connector, counts } = harness([{ name: "c1", region: "us-east-1" }], { describeError: denied });
  for (let attempt = 1; attempt <= 2; attempt++) {
    await assert.rejects(connector.access("c1"), (error: unknown) => {
      assert.ok(error instanceof ClusterAccessDeniedError);
      assert.equal(error.kind, "misconfigured", "the product's own role, not the caller, was refused");
      assert.equal(error.cause, denied);
      assert.equal(
        error.publicMessage,
        `service misconfigured: DescribeCluster for cluster "c1" was denied to the service's AWS role; ` +
          "an operator must fix its IAM permissions or the cluster's access entries",
      );
      assert.match(
        error.message,
        /^DescribeCluster for cluster "c1" was denied: AccessDeniedException: User: .* eks:DescribeCluster/,
      );
      return true;
    });
  }
  assert.equal(counts.describe, 2);
});

test("a cluster that is CREATING is a ClusterNotActiveError; UPDATING is still served", async () => {
  const creating = harness([{ name: "c1", region: "us-east-1" }], { status: "CREATING" });
  await assert.rejects(creating.connector.access("c1"), (error: unknown) => {
    assert.ok(error instanceof ClusterNotActiveError);
    assert.equal(error.kind, "unavailable");
    assert.match(error.message, /cluster "c1" is CREATING, not ACTIVE/);
    return true;
  });
  const updating = harness([{ name: "c1", region: "us-east-1" }], { status: "UPDATING" });
  assert.ok(await updating.connector.access("c1"));
});

test("no credentials anywhere is a clear ClusterAccessDeniedError", async () => {
  const connector = createEksConnector({
    registry: [{ name: "c1", region: "us-east-1" }],
    credentials: async () => {
      throw Object.assign(new Error("Could not load credentials from any providers"), {
        name: "CredentialsProviderError",
      });
    },
    eksClientFactory: (_entry, credentials) => ({
      async send() {
        await credentials();
        throw new Error("unreachable");
      },
    }),
  });
  await assert.rejects(connector.access("c1"), (error: unknown) => {
    assert.ok(error instanceof ClusterAccessDeniedError);
    assert.match(error.message, /no AWS credentials/);
    return true;
  });
});

test("a non-https API endpoint is refused rather than sending the token in clear", async () => {
  const connector = createEksConnector({
    registry: [{ name: "c1", region: "us-east-1" }],
    credentials: async () => keys,
    eksClientFactory: () => ({
      send: async () => ({
        $metadata: {},
        cluster: { status: "ACTIVE", endpoint: "http://c1.example.test", certificateAuthority: { data: "eA==" } },
      }),
    }),
  });
  await assert.rejects(connector.access("c1"), ClusterUnreachableError);
});
