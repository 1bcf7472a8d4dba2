import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { execCredentialApiVersion, formatExecCredential } from "../../bin/lib/exec-credential.ts";
import { createEksToken, decodeEksToken, stsHostForRegion } from "../../shared/eks/token.ts";

// AWS's public documentation dummies: presigning is offline, nothing reaches AWS.
const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
const awsCliPresent = spawnSync("aws", ["--version"], { stdio: "ignore" }).status === 0;
const emptyHome = mkdtempSync(join(tmpdir(), "token-test-home-"));
after(() => rmSync(emptyHome, { recursive: true, force: true }));

function amzDate(value: string): Date {
  return new Date(value.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, "$1-$2-$3T$4:$5:$6Z"));
}

function awsGetToken(cluster: string, region: string, sessionToken?: string): string {
  // A throwaway HOME and no config files: the oracle must never read the developer's ~/.aws.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: emptyHome,
    AWS_CONFIG_FILE: join(emptyHome, "none"),
    AWS_SHARED_CREDENTIALS_FILE: join(emptyHome, "none"),
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_EC2_METADATA_DISABLED: "true",
  };
  if (sessionToken) env.AWS_SESSION_TOKEN = sessionToken;
  return execFileSync("aws", ["eks", "get-token", "--cluster-name", cluster, "--region", region], {
    env,
    encoding: "utf8",
    timeout: 30_000,
  });
}

// The CLI takes "now" twice (expiry, then signing): across a second boundary they differ by one
// second, so the comparison re-runs the CLI (at most 3 times) until both fall in the same second.
async function compareWithAwsCli(cluster: string, region: string, sessionToken?: string) {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const printed = awsGetToken(cluster, region, sessionToken);
    const cliToken = JSON.parse(printed).status.token as string;
    const signingDate = amzDate(decodeEksToken(cliToken).searchParams.get("X-Amz-Date")!);
    const ours = await createEksToken({
      clusterName: cluster,
      region,
      credentials: { ...credentials, sessionToken },
      signingDate,
    });
    assert.equal(ours.token, cliToken, "token differs from aws eks get-token");
    if (formatExecCredential(ours) === printed || attempt === 3) {
      assert.equal(formatExecCredential(ours), printed);
      return ours;
    }
  }
}

test("the token equals aws eks get-token byte for byte (no session token)", {
  skip: !awsCliPresent && "no aws CLI",
}, async () => {
  const ours = await compareWithAwsCli("my-cluster", "us-east-1");
  assert.ok(ours!.token.length < 4096);
});

test("the token equals aws eks get-token byte for byte (with a session token)", {
  skip: !awsCliPresent && "no aws CLI",
}, async () => {
  // '/', '+' and '=' exercise the RFC 3986 encoding of the security token.
  await compareWithAwsCli("prod_eu-1", "eu-west-1", "IQoJb3JpZ2luX2VjE/+abc==/session+token");
});

test("a fixed instant gives the reference token (eks-auth.md §2 sample)", async () => {
  const token = await createEksToken({
    clusterName: "my-cluster",
    region: "us-east-1",
    credentials,
    signingDate: new Date("2026-12-02T14:38:16.789Z"),
  });
  const url = decodeEksToken(token.token);
  assert.equal(
    url.searchParams.get("X-Amz-Signature"),
    "f9d57daef670da4c273e42001e9128271fbdabe86e535a4079ebab6e939a3359",
  );
  assert.equal(token.token.length, 481);
  assert.equal(token.signedAt.toISOString(), "2026-12-02T14:38:16.000Z");
  assert.equal(token.expiresAt.toISOString(), "2026-12-02T14:52:16.000Z");
});

test("the token is a regional STS GetCallerIdentity URL signed over host and x-k8s-aws-id", async () => {
  const token = await createEksToken({
    clusterName: "c1",
    region: "eu-central-1",
    credentials: { ...credentials, sessionToken: "tok" },
    signingDate: new Date("2026-01-01T00:00:00Z"),
  });
  assert.match(token.token, /^k8s-aws-v1\.[A-Za-z0-9_-]+$/, "unpadded base64url");
  const url = decodeEksToken(token.token);
  assert.equal(url.origin, "https://sts.eu-central-1.amazonaws.com");
  assert.equal(url.pathname, "/");
  assert.deepEqual(
    [...url.searchParams.keys()],
    [
      "Action",
      "Version",
      "X-Amz-Algorithm",
      "X-Amz-Credential",
      "X-Amz-Date",
      "X-Amz-Expires",
      "X-Amz-SignedHeaders",
      "X-Amz-Security-Token",
      "X-Amz-Signature",
    ],
  );
  assert.equal(url.searchParams.get("Action"), "GetCallerIdentity");
  assert.equal(url.searchParams.get("X-Amz-Expires"), "60");
  assert.equal(url.searchParams.get("X-Amz-SignedHeaders"), "host;x-k8s-aws-id");
  assert.equal(url.searchParams.get("X-Amz-Credential"), "AKIDEXAMPLE/20260101/eu-central-1/sts/aws4_request");
  assert.equal(url.searchParams.get("x-k8s-aws-id"), null, "the cluster header is signed, never in the URL");
  const other = await createEksToken({
    clusterName: "c2",
    region: "eu-central-1",
    credentials: { ...credentials, sessionToken: "tok" },
    signingDate: new Date("2026-01-01T00:00:00Z"),
  });
  assert.notEqual(
    decodeEksToken(other.token).searchParams.get("X-Amz-Signature"),
    url.searchParams.get("X-Amz-Signature"),
  );
});

test("the STS host follows the partition", () => {
  assert.equal(stsHostForRegion("us-west-2"), "sts.us-west-2.amazonaws.com");
  assert.equal(stsHostForRegion("cn-north-1"), "sts.cn-north-1.amazonaws.com.cn");
  assert.equal(stsHostForRegion("us-gov-west-1"), "sts.us-gov-west-1.amazonaws.com");
});

test("ExecCredential apiVersion follows KUBERNETES_EXEC_INFO like the AWS CLI", () => {
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);
  assert.equal(execCredentialApiVersion(undefined), "client.authentication.k8s.io/v1beta1");
  assert.equal(
    execCredentialApiVersion('{"apiVersion":"client.authentication.k8s.io/v1"}'),
    "client.authentication.k8s.io/v1",
  );
  assert.equal(
    execCredentialApiVersion('{"apiVersion":"client.authentication.k8s.io/v2"}'),
    "client.authentication.k8s.io/v1beta1",
  );
  assert.equal(execCredentialApiVersion("not json"), "client.authentication.k8s.io/v1beta1");
  assert.equal(
    execCredentialApiVersion('{"apiVersion":"client.authentication.k8s.io/v1alpha1"}', warn),
    "client.authentication.k8s.io/v1alpha1",
  );
  assert.equal(warnings.length, 1);
});
