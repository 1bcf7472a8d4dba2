import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { Sha256 } from "@aws-crypto/sha256-js";
import { DescribeClusterCommand, EKSClient } from "@aws-sdk/client-eks";
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";
import { TokenRejected, verifyEksToken } from "../../local/sim/aws/eks-token.ts";
import { mintEksToken, type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { call } from "./helpers.ts";

const run = promisify(execFile);
const URL_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * Variants of a valid token that aws-iam-authenticator refuses while decoding (Go's
 * base64.RawURLEncoding, then url.Parse). Several decode with Buffer's lenient decoder (and
 * parse with WHATWG URL) to the very URL that was signed.
 */
function tamperedEncodings(good: string): Record<string, string> {
  const prefix = "k8s-aws-v1.";
  const payload = good.slice(prefix.length);
  const decoded = Buffer.from(payload, "base64url").toString("latin1");
  const encode = (url: string) => `${prefix}${Buffer.from(url, "latin1").toString("base64url")}`;
  // A length of 2 or 3 mod 4 leaves unused bits in the last character; setting one keeps the bytes.
  assert.notEqual(payload.length % 4, 0, "the fixture token needs a partial last quantum");
  const last = URL_ALPHABET.indexOf(payload.at(-1) ?? "");
  return {
    extraChar: `${good}A`,
    extraTwoChars: `${good}AA`,
    extraThreeChars: `${good}AAA`,
    extraQuantum: `${good}AAAA`,
    paddedOnce: `${good}=`,
    padded: `${good}==`,
    plus: `${prefix}${payload.slice(0, 20)}+${payload.slice(21)}`,
    slash: `${prefix}${payload.slice(0, 20)}/${payload.slice(21)}`,
    standardAlphabet: `${prefix}${Buffer.from(decoded, "latin1").toString("base64")}`,
    truncatedByOne: good.slice(0, -1),
    truncatedByTwo: good.slice(0, -2),
    truncatedByQuantum: good.slice(0, -4),
    strayTrailingBits: `${good.slice(0, -1)}${URL_ALPHABET[last | 1]}`,
    spaceInside: `${prefix}${payload.slice(0, 20)} ${payload.slice(20)}`,
    dotInside: `${prefix}${payload.slice(0, 20)}.${payload.slice(20)}`,
    trailingNul: encode(`${decoded}\0`),
    trailingNewline: encode(`${decoded}\n`),
    leadingSpace: encode(` ${decoded}`),
    tabInside: encode(decoded.replace("?", "?\t")),
  };
}
const DUMMY = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
let sim: SimulatedEks;

before(async () => {
  sim = await startSimulatedEks({
    clusters: [{ name: "alpha" }, { name: "beta", region: "eu-west-1", kubernetesVersion: "1.35" }],
    credentials: DUMMY,
  });
});
after(async () => {
  await sim?.stop();
});

const eks = (credentials = sim.credentials, region = "us-east-1") =>
  new EKSClient({ region, endpoint: sim.eksEndpoint, credentials, maxAttempts: 1 });
const sts = (credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } = sim.credentials) =>
  new STSClient({ region: "us-east-1", endpoint: sim.stsEndpoint, credentials, maxAttempts: 1 });

describe("EKS DescribeCluster", () => {
  test("endpoint, CA data, arn, version and status as @aws-sdk/client-eks reads them", async () => {
    const { cluster } = await eks().send(new DescribeClusterCommand({ name: "beta" }));
    const beta = sim.cluster("beta");
    assert.equal(cluster?.endpoint, beta.server);
    assert.equal(cluster?.certificateAuthority?.data, beta.caData);
    assert.match(Buffer.from(beta.caData, "base64").toString(), /^-----BEGIN CERTIFICATE-----/);
    assert.equal(cluster?.arn, `arn:aws:eks:eu-west-1:${sim.iam.account}:cluster/beta`);
    assert.equal(cluster?.version, "1.35");
    assert.equal(cluster?.status, "ACTIVE");
    assert.ok(cluster?.createdAt instanceof Date);
    beta.setStatus("UPDATING");
    try {
      assert.equal((await eks().send(new DescribeClusterCommand({ name: "beta" }))).cluster?.status, "UPDATING");
    } finally {
      beta.setStatus("ACTIVE");
    }
  });

  test("unknown cluster: ResourceNotFoundException; unknown keys or a wrong secret: refused", async () => {
    await assert.rejects(eks().send(new DescribeClusterCommand({ name: "nope" })), {
      name: "ResourceNotFoundException",
    });
    await assert.rejects(
      eks({ accessKeyId: "AKIAUNKNOWNUNKNOWN00", secretAccessKey: "x" }).send(
        new DescribeClusterCommand({ name: "alpha" }),
      ),
      { name: "UnrecognizedClientException" },
    );
    await assert.rejects(
      eks({ ...sim.credentials, secretAccessKey: "wrong" }).send(new DescribeClusterCommand({ name: "alpha" })),
      { name: "InvalidSignatureException" },
    );
  });
});

describe("STS", () => {
  test("GetCallerIdentity names the IAM user", async () => {
    const identity = await sts().send(new GetCallerIdentityCommand({}));
    assert.equal(identity.Arn, `arn:aws:iam::${sim.iam.account}:user/sim-admin`);
    assert.equal(identity.Account, sim.iam.account);
  });

  test("AssumeRole: temporary keys that STS and the API server accept; denied for unknown roles and wrong external ids", async () => {
    const roleArn = `arn:aws:iam::${sim.iam.account}:role/reader`;
    sim.iam.addRole(roleArn, { externalId: "ext-1" });
    const { Credentials, AssumedRoleUser } = await sts().send(
      new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: "helm-status", ExternalId: "ext-1" }),
    );
    assert.match(Credentials?.AccessKeyId ?? "", /^ASIA/);
    assert.ok(Credentials?.SessionToken);
    assert.ok(Credentials?.Expiration instanceof Date);
    assert.equal(AssumedRoleUser?.Arn, `arn:aws:sts::${sim.iam.account}:assumed-role/reader/helm-status`);
    const temporary = {
      accessKeyId: Credentials?.AccessKeyId ?? "",
      secretAccessKey: Credentials?.SecretAccessKey ?? "",
      sessionToken: Credentials?.SessionToken ?? "",
    };
    assert.equal((await sts(temporary).send(new GetCallerIdentityCommand({}))).Arn, AssumedRoleUser?.Arn);
    const alpha = sim.cluster("alpha");
    alpha.resetStats();
    const token = mintEksToken(temporary, "alpha", "us-east-1", new Date());
    assert.equal((await call(alpha, "/api/v1/namespaces", { token })).status, 200);
    assert.equal(alpha.stats().log[0].user, AssumedRoleUser?.Arn);
    const withoutSession = mintEksToken({ ...temporary, sessionToken: undefined }, "alpha", "us-east-1", new Date());
    assert.equal((await call(alpha, "/api/v1/namespaces", { token: withoutSession })).status, 401);

    await assert.rejects(
      sts().send(new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: "s1", ExternalId: "wrong" })),
      {
        name: "AccessDenied",
      },
    );
    await assert.rejects(sts().send(new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: "s2" })), {
      name: "AccessDenied",
    });
    await assert.rejects(
      sts().send(
        new AssumeRoleCommand({ RoleArn: `arn:aws:iam::${sim.iam.account}:role/none`, RoleSessionName: "s3" }),
      ),
      { name: "AccessDenied" },
    );
    const guarded = `arn:aws:iam::${sim.iam.account}:role/guarded`;
    sim.iam.addRole(guarded, { allowedPrincipals: [`arn:aws:iam::${sim.iam.account}:user/someone-else`] });
    await assert.rejects(sts().send(new AssumeRoleCommand({ RoleArn: guarded, RoleSessionName: "s4" })), {
      name: "AccessDenied",
    });
  });
});

describe("EKS tokens on the API server", () => {
  test("mintEksToken equals @smithy/signature-v4's presign byte for byte (modulo parameter order)", async () => {
    const signingDate = new Date("2026-12-02T14:38:16Z");
    const token = mintEksToken(DUMMY, "my-cluster", "us-east-1", signingDate);
    const url = new URL(Buffer.from(token.slice("k8s-aws-v1.".length), "base64url").toString());
    const host = "sts.us-east-1.amazonaws.com";
    const presigned = await new SignatureV4({
      service: "sts",
      region: "us-east-1",
      sha256: Sha256,
      credentials: DUMMY,
    }).presign(
      new HttpRequest({
        method: "GET",
        protocol: "https:",
        hostname: host,
        path: "/",
        headers: { host, "x-k8s-aws-id": "my-cluster" },
        query: { Action: "GetCallerIdentity", Version: "2011-06-15" },
      }),
      { expiresIn: 60, signingDate },
    );
    assert.equal(url.searchParams.get("X-Amz-Signature"), presigned.query?.["X-Amz-Signature"]);
    // eks-auth.md §2: the AWS CLI's token for these inputs.
    assert.equal(
      url.searchParams.get("X-Amz-Signature"),
      "f9d57daef670da4c273e42001e9128271fbdabe86e535a4079ebab6e939a3359",
    );
  });

  test("401 for no token, garbage, padding, a foreign host, an extra parameter, another cluster, an unknown key, expiry", async () => {
    const alpha = sim.cluster("alpha");
    const good = alpha.token();
    assert.equal((await call(alpha, "/api/v1/namespaces", { token: good })).status, 200);
    const decoded = Buffer.from(good.slice(11), "base64url").toString();
    const encode = (url: string) => `k8s-aws-v1.${Buffer.from(url).toString("base64url")}`;
    const bad: Record<string, string | null> = {
      none: null,
      garbage: "not-a-token",
      ...tamperedEncodings(good),
      foreignHost: encode(decoded.replace("sts.us-east-1.amazonaws.com", "sts.evil.example.com")),
      http: encode(decoded.replace("https://", "http://")),
      extraParameter: encode(`${decoded}&X-Amz-Content-Sha256=x`),
      otherCluster: mintEksToken(sim.credentials, "beta", "us-east-1", new Date()),
      unknownKey: mintEksToken(
        { accessKeyId: "AKIAOTHER00000000000", secretAccessKey: "x" },
        "alpha",
        "us-east-1",
        new Date(),
      ),
      wrongSecret: mintEksToken(
        { ...sim.credentials, secretAccessKey: "another-secret" },
        "alpha",
        "us-east-1",
        new Date(),
      ),
      expired: mintEksToken(sim.credentials, "alpha", "us-east-1", new Date(Date.now() - 16 * 60_000)),
    };
    // Twice, the good token verified (and cached) in between: a cache hit for it must not let a variant through.
    const rounds = [...Object.entries(bad), ["good", good] as const, ...Object.entries(bad)];
    for (const [name, token] of rounds) {
      const reply = await call(alpha, "/api/v1/namespaces", { token });
      if (name === "good") {
        assert.equal(reply.status, 200);
        continue;
      }
      assert.equal(reply.status, 401, name);
      assert.deepEqual(
        reply.json,
        {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "Unauthorized",
          reason: "Unauthorized",
          code: 401,
        },
        name,
      );
    }
    const revokedUser = sim.iam.addUser("temporary");
    const revoked = mintEksToken(revokedUser.credentials, "alpha", "us-east-1", new Date());
    assert.equal((await call(alpha, "/api/v1/namespaces", { token: revoked })).status, 200);
    sim.iam.revokeKey(revokedUser.credentials.accessKeyId);
    assert.equal((await call(alpha, "/api/v1/namespaces", { token: revoked })).status, 401);
  });

  test("strict base64url as Go's RawURLEncoding + url.Parse: each tampered encoding is refused for its encoding", async () => {
    const now = new Date();
    const good = mintEksToken(sim.credentials, "alpha", "us-east-1", now);
    assert.equal(
      (await verifyEksToken(sim.iam, good, "alpha", now)).arn,
      `arn:aws:iam::${sim.iam.account}:user/sim-admin`,
    );
    for (const [name, token] of Object.entries(tamperedEncodings(good))) {
      await assert.rejects(
        verifyEksToken(sim.iam, token, "alpha", now),
        (error: Error) => {
          assert.ok(error instanceof TokenRejected, name);
          assert.match(error.message, /not valid unpadded base64url|control character|STS rejected/, name);
          return true;
        },
        name,
      );
    }
    // The cases Buffer's lenient decoder alone would have let through, refused for the encoding itself.
    const tampered = tamperedEncodings(good);
    for (const name of ["spaceInside", "dotInside", "padded", "strayTrailingBits"]) {
      await assert.rejects(verifyEksToken(sim.iam, tampered[name], "alpha", now), /not valid unpadded base64url/, name);
    }
    for (const name of ["extraChar", "extraQuantum", "trailingNul", "trailingNewline", "leadingSpace", "tabInside"]) {
      await assert.rejects(verifyEksToken(sim.iam, tampered[name], "alpha", now), /control character/, name);
    }
  });

  test("a token from the real AWS CLI (aws eks get-token) is accepted; one signed with another secret is not", async (t) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      AWS_ACCESS_KEY_ID: DUMMY.accessKeyId,
      AWS_DEFAULT_REGION: "eu-west-1",
      AWS_CONFIG_FILE: "/dev/null",
      AWS_SHARED_CREDENTIALS_FILE: "/dev/null",
    };
    delete env.AWS_SESSION_TOKEN;
    delete env.AWS_PROFILE;
    const getToken = async (secret: string) => {
      const { stdout } = await run("aws", ["eks", "get-token", "--cluster-name", "beta", "--region", "eu-west-1"], {
        env: { ...env, AWS_SECRET_ACCESS_KEY: secret },
        timeout: 30_000,
      });
      return JSON.parse(stdout).status.token as string;
    };
    let token: string;
    try {
      token = await getToken(DUMMY.secretAccessKey);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        t.skip("the AWS CLI is not installed");
        return;
      }
      throw error;
    }
    const beta = sim.cluster("beta");
    assert.equal((await call(beta, "/api/v1/namespaces", { token })).status, 200);
    assert.equal((await call(beta, "/api/v1/namespaces", { token: await getToken("some-other-secret") })).status, 401);
    assert.equal(
      (await call(sim.cluster("alpha"), "/api/v1/namespaces", { token })).status,
      401,
      "minted for beta, not alpha",
    );
  });
});
