import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { accountOfArn, type SimIam, type SimPrincipal } from "./iam.ts";
import type { AwsRateLimiter } from "./rate-limit.ts";
import { SignatureRejected, verifyHeaderSignature, verifyPresignedUrl } from "./sigv4.ts";

/** What DescribeCluster needs to know about one simulated cluster. */
export interface DescribableCluster {
  name: string;
  region: string;
  arn: string;
  server: string;
  caData: string;
  version: string;
  status: string;
  createdAt: Date;
  /** Whether EKS's `audit` control-plane log type is on. */
  audit: { enabled: boolean };
}

interface Handled {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** A plain-HTTP control-plane endpoint on 127.0.0.1 (EKS or STS) with SigV4-verified callers. */
export class AwsEndpoint {
  private server?: Server;
  url = "";
  requests = 0;

  private readonly handle: (req: IncomingMessage, body: string, url: URL) => Promise<Handled>;

  constructor(handle: (req: IncomingMessage, body: string, url: URL) => Promise<Handled>) {
    this.handle = handle;
  }

  async start(): Promise<string> {
    const server = createServer((req, res) => {
      this.requests++;
      this.serve(req, res).catch((error) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ message: `simulator error: ${(error as Error).message}` }));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const reply = await this.handle(req, Buffer.concat(chunks).toString("utf8"), url);
    res.writeHead(reply.status, { "x-amzn-requestid": randomUUID(), ...reply.headers });
    res.end(reply.body);
  }
}

function headerMap(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(",") : value;
  }
  return headers;
}

async function authenticate(
  iam: SimIam,
  req: IncomingMessage,
  body: string,
  url: URL,
  now: Date,
): Promise<SimPrincipal> {
  return verifyHeaderSignature(
    iam,
    {
      method: req.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams.entries()),
      headers: headerMap(req),
      body,
    },
    now,
  );
}

/**
 * EKS's REST-JSON API: DescribeCluster and ListClusters, as @aws-sdk/client-eks calls them. DescribeCluster is
 * rate-limited per caller account when `limiter` is given (429 ThrottlingException "Rate exceeded").
 */
export function eksHandler(
  iam: SimIam,
  clusters: () => DescribableCluster[],
  now: () => Date,
  limiter?: AwsRateLimiter,
) {
  const json = (status: number, body: unknown, errorType?: string): Handled => ({
    status,
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", ...(errorType ? { "x-amzn-errortype": errorType } : {}) },
  });
  return async (req: IncomingMessage, body: string, url: URL): Promise<Handled> => {
    let principal: SimPrincipal;
    try {
      principal = await authenticate(iam, req, body, url, now());
    } catch (error) {
      if (!(error instanceof SignatureRejected)) throw error;
      const type =
        error.awsCode === "SignatureDoesNotMatch" ? "InvalidSignatureException" : "UnrecognizedClientException";
      return json(403, { message: error.message }, type);
    }
    const match = /^\/clusters(?:\/([^/]+))?$/.exec(url.pathname);
    if (!match || req.method !== "GET")
      return json(404, { message: `no such operation: ${req.method} ${url.pathname}` }, "NotFoundException");
    if (!match[1]) {
      return json(200, { clusters: clusters().map((c) => c.name) });
    }
    if (limiter && !limiter.take("DescribeCluster", principal.account)) {
      return json(429, { message: "Rate exceeded" }, "ThrottlingException");
    }
    const name = decodeURIComponent(match[1]);
    const cluster = clusters().find((c) => c.name === name);
    const arn = cluster?.arn ?? `arn:aws:eks:${clusters()[0]?.region ?? "us-east-1"}:${iam.account}:cluster/${name}`;
    if (iam.isDenied(principal, "eks:DescribeCluster")) {
      return json(
        403,
        { message: `User: ${principal.arn} is not authorized to perform: eks:DescribeCluster on resource: ${arn}` },
        "AccessDeniedException",
      );
    }
    if (!cluster) return json(404, { message: `No cluster found for name: ${name}.` }, "ResourceNotFoundException");
    return json(200, { cluster: describe(cluster, iam.account) });
  };
}

function describe(cluster: DescribableCluster, account: string) {
  return {
    name: cluster.name,
    arn: cluster.arn,
    createdAt: cluster.createdAt.getTime() / 1000,
    version: cluster.version,
    endpoint: cluster.server,
    roleArn: `arn:aws:iam::${account}:role/eks-cluster-role`,
    resourcesVpcConfig: {
      subnetIds: ["subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002"],
      securityGroupIds: [],
      clusterSecurityGroupId: "sg-0a1b2c3d4e5f60003",
      vpcId: "vpc-0a1b2c3d4e5f60004",
      endpointPublicAccess: true,
      endpointPrivateAccess: false,
      publicAccessCidrs: ["0.0.0.0/0"],
    },
    kubernetesNetworkConfig: { serviceIpv4Cidr: "10.100.0.0/16", ipFamily: "ipv4" },
    identity: {
      oidc: { issuer: `https://oidc.eks.${cluster.region}.amazonaws.com/id/SIMULATED${cluster.name.toUpperCase()}` },
    },
    status: cluster.status,
    certificateAuthority: { data: cluster.caData },
    platformVersion: "eks.1",
    tags: {},
    accessConfig: { authenticationMode: "API_AND_CONFIG_MAP" },
    logging: {
      clusterLogging: [
        ...(cluster.audit.enabled ? [{ types: ["audit"], enabled: true }] : []),
        {
          types: [
            "api",
            ...(cluster.audit.enabled ? [] : ["audit"]),
            "authenticator",
            "controllerManager",
            "scheduler",
          ],
          enabled: false,
        },
      ],
    },
    health: { issues: [] },
  };
}

const XMLNS = "https://sts.amazonaws.com/doc/2011-06-15/";

const xmlEscape = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * STS's awsQuery API (form-encoded POST, XML answers): AssumeRole and GetCallerIdentity; also a presigned GET.
 * AssumeRole is rate-limited per account of the role when `limiter` is given (400 Throttling "Rate exceeded").
 */
export function stsHandler(iam: SimIam, now: () => Date, limiter?: AwsRateLimiter) {
  const xml = (status: number, body: string): Handled => ({ status, body, headers: { "content-type": "text/xml" } });
  const error = (status: number, code: string, message: string) =>
    xml(
      status,
      `<ErrorResponse xmlns="${XMLNS}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${xmlEscape(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
    );
  const metadata = () => `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata>`;
  const callerIdentity = (principal: SimPrincipal, json: boolean): Handled => {
    if (json) {
      const result = { Arn: principal.arn, UserId: principal.userId, Account: principal.account };
      return {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          GetCallerIdentityResponse: { GetCallerIdentityResult: result, ResponseMetadata: { RequestId: randomUUID() } },
        }),
      };
    }
    return xml(
      200,
      `<GetCallerIdentityResponse xmlns="${XMLNS}"><GetCallerIdentityResult><Arn>${xmlEscape(principal.arn)}</Arn><UserId>${xmlEscape(principal.userId)}</UserId><Account>${principal.account}</Account></GetCallerIdentityResult>${metadata()}</GetCallerIdentityResponse>`,
    );
  };

  return async (req: IncomingMessage, body: string, url: URL): Promise<Handled> => {
    if (req.method === "GET" && url.searchParams.has("X-Amz-Signature")) {
      // A presigned GetCallerIdentity (what aws-iam-authenticator replays), verified for the x-k8s-aws-id it carries.
      try {
        const presigned = new URL(`https://${req.headers.host ?? "127.0.0.1"}${req.url}`);
        const { principal } = await verifyPresignedUrl(iam, presigned, String(req.headers["x-k8s-aws-id"] ?? ""));
        return callerIdentity(principal, String(req.headers.accept ?? "").includes("json"));
      } catch (e) {
        if (e instanceof SignatureRejected) return error(403, e.awsCode, e.message);
        throw e;
      }
    }
    let principal: SimPrincipal;
    try {
      principal = await authenticate(iam, req, body, url, now());
    } catch (e) {
      if (e instanceof SignatureRejected) return error(403, e.awsCode, e.message);
      throw e;
    }
    const params = new URLSearchParams(req.method === "POST" ? body : url.search);
    switch (params.get("Action")) {
      case "GetCallerIdentity":
        return callerIdentity(principal, false);
      case "AssumeRole":
        if (limiter && !limiter.take("AssumeRole", accountOfArn(params.get("RoleArn")) ?? principal.account)) {
          return error(400, "Throttling", "Rate exceeded");
        }
        return assumeRole(iam, principal, params, { error, xml, metadata });
      default:
        return error(400, "InvalidAction", `Could not find operation ${params.get("Action")} for version 2011-06-15`);
    }
  };
}

function assumeRole(
  iam: SimIam,
  caller: SimPrincipal,
  params: URLSearchParams,
  reply: {
    error: (status: number, code: string, message: string) => Handled;
    xml: (status: number, body: string) => Handled;
    metadata: () => string;
  },
): Handled {
  const roleArn = params.get("RoleArn") ?? "";
  const sessionName = params.get("RoleSessionName") ?? "";
  const duration = Number(params.get("DurationSeconds") ?? "3600");
  if (!/^[\w+=,.@-]{2,64}$/.test(sessionName)) {
    return reply.error(
      400,
      "ValidationError",
      "1 validation error detected: Value at 'roleSessionName' failed to satisfy constraint",
    );
  }
  if (!Number.isInteger(duration) || duration < 900 || duration > 43200) {
    return reply.error(
      400,
      "ValidationError",
      "1 validation error detected: Value at 'durationSeconds' failed to satisfy constraint",
    );
  }
  const denied = () =>
    reply.error(
      403,
      "AccessDenied",
      `User: ${caller.arn} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`,
    );
  const role = iam.role(roleArn);
  if (!role || iam.isDenied(caller, "sts:AssumeRole")) return denied();
  if (role.allowedPrincipals && !role.allowedPrincipals.some((p) => p === caller.arn || p === caller.canonicalArn))
    return denied();
  if (role.externalId !== undefined && params.get("ExternalId") !== role.externalId) return denied();
  const session = iam.issueSession(role, sessionName, duration);
  const principal = iam.lookupKey(session.accessKeyId)?.principal;
  return reply.xml(
    200,
    `<AssumeRoleResponse xmlns="${XMLNS}"><AssumeRoleResult><Credentials><AccessKeyId>${session.accessKeyId}</AccessKeyId><SecretAccessKey>${xmlEscape(session.secretAccessKey)}</SecretAccessKey><SessionToken>${xmlEscape(session.sessionToken ?? "")}</SessionToken><Expiration>${session.expiration.toISOString()}</Expiration></Credentials><AssumedRoleUser><AssumedRoleId>${xmlEscape(principal?.userId ?? "")}</AssumedRoleId><Arn>${xmlEscape(principal?.arn ?? "")}</Arn></AssumedRoleUser></AssumeRoleResult>${reply.metadata()}</AssumeRoleResponse>`,
  );
}
