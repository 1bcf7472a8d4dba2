import { stringify } from "yaml";
import type { DescribableCluster } from "./aws/endpoints.ts";
import type { SimCredentials, SimPrincipal } from "./aws/iam.ts";
import { mintEksToken } from "./aws/sigv4.ts";
import { reconcile } from "./controllers.ts";
import { SimulatorInputError } from "./errors.ts";
import type { AuditLog } from "./kube/audit.ts";
import type { Faults, RequestStats } from "./kube/faults.ts";
import { ApiError } from "./kube/negotiation.ts";
import type { DenyRule, KubeApiServer } from "./kube/server.ts";
import type { ClusterState } from "./kube/state.ts";
import type { KubeObject } from "./kube/types.ts";
import { parseObjects } from "./manifests.ts";
import { type MaterializeOptions, materialize, OWNER_UID_PREFIX } from "./materialize.ts";

export type ClusterStatus = "ACTIVE" | "CREATING" | "DELETING" | "FAILED" | "UPDATING";

/** Token lifetime rules of eks-auth.md §3: valid 15 minutes after signing; re-sign well before. */
const TOKEN_REUSE_MS = 10 * 60_000;

/** One simulated EKS cluster: its API server, its state and its control-plane facts. */
export class SimCluster implements DescribableCluster {
  readonly name: string;
  readonly region: string;
  readonly arn: string;
  readonly server: string;
  readonly caData: string;
  readonly version: string;
  readonly createdAt: Date;
  status: ClusterStatus = "ACTIVE";
  /** Whether workloads written through the API are materialized at once (controllers.ts). */
  controllers = false;
  readonly faults: { set(f: Partial<Faults>): void; clear(): void };
  private readonly state: ClusterState;
  private readonly api: KubeApiServer;
  private readonly signer: SimCredentials;
  private readonly authNow: () => Date;
  private cachedToken?: { token: string; signedAt: number };
  /** The control-plane audit log (EKS's `audit` log type) and its CloudWatch Logs group. */
  readonly audit: AuditLog;
  private readonly principalOf: (accessKeyId: string) => SimPrincipal | undefined;

  constructor(init: {
    name: string;
    region: string;
    account: string;
    caPem: string;
    version: string;
    state: ClusterState;
    api: KubeApiServer;
    signer: SimCredentials;
    authNow: () => Date;
    audit: AuditLog;
    principalOf: (accessKeyId: string) => SimPrincipal | undefined;
  }) {
    this.audit = init.audit;
    this.principalOf = init.principalOf;
    this.name = init.name;
    this.region = init.region;
    this.arn = `arn:aws:eks:${init.region}:${init.account}:cluster/${init.name}`;
    this.server = `https://127.0.0.1:${init.api.port}`;
    this.caData = Buffer.from(init.caPem).toString("base64");
    this.version = init.version;
    this.createdAt = init.state.now();
    this.state = init.state;
    this.api = init.api;
    this.signer = init.signer;
    this.authNow = init.authNow;
    this.faults = { set: (f) => this.api.setFaults(f), clear: () => this.api.clearFaults() };
  }

  setStatus(status: ClusterStatus): void {
    this.status = status;
  }

  /**
   * A bearer token for this cluster: the simulated IAM's admin user's (reused for 10 of its 15 minutes), or
   * signed now with other keys (an IAM user of `iam.addUser`, an AssumeRole session) to act as that identity.
   */
  token(credentials?: SimCredentials): string {
    const now = this.authNow().getTime();
    if (credentials) return mintEksToken(credentials, this.name, this.region, new Date(now));
    if (!this.cachedToken || now - this.cachedToken.signedAt > TOKEN_REUSE_MS || now < this.cachedToken.signedAt) {
      this.cachedToken = { token: mintEksToken(this.signer, this.name, this.region, new Date(now)), signedAt: now };
    }
    return this.cachedToken.token;
  }

  /** A kubeconfig (YAML) for kubectl/helm: server, CA data and the bearer token. */
  kubeconfig(options: { namespace?: string; credentials?: SimCredentials } = {}): string {
    return stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: this.arn, cluster: { server: this.server, "certificate-authority-data": this.caData } }],
      users: [{ name: this.arn, user: { token: this.token(options.credentials) } }],
      contexts: [
        {
          name: this.arn,
          context: {
            cluster: this.arn,
            user: this.arn,
            ...(options.namespace ? { namespace: options.namespace } : {}),
          },
        },
      ],
      "current-context": this.arn,
      preferences: {},
    });
  }

  /** Create-or-replace objects as given (status kept), server fields set; unknown kinds are an error. */
  apply(objects: object[] | string): KubeObject[] {
    return parseObjects(objects, `apply to cluster ${this.name}`).map((object) => this.upsert(object));
  }

  /**
   * Server-side apply as field manager `manager` would send it (PATCH application/apply-patch+yaml, forced by
   * default): managedFields recorded like kube-apiserver does, e.g. to make materialized objects Helm-owned.
   */
  applyAs(manager: string, objects: object[] | string, options: { force?: boolean } = {}): KubeObject[] {
    return parseObjects(objects, `apply to cluster ${this.name}`).map((config) => {
      const type = this.typeOrThrow(config);
      const namespace = type.namespaced ? config.metadata?.namespace || "default" : undefined;
      const { object } = this.state.apply(type, namespace, config.metadata?.name ?? "", config, {
        manager,
        operation: "Apply",
        force: options.force ?? true,
      });
      return structuredClone(object);
    });
  }

  /**
   * An Update as manager `manager` would make it (kubectl set/edit/patch, or `scale` through the /scale
   * subresource): `change` edits a copy of the live object; managedFields recorded like kube-apiserver does.
   */
  updateAs(
    manager: string,
    target: { apiVersion: string; kind: string; name: string; namespace?: string },
    change: (object: KubeObject) => void,
    options: { subresource?: "scale" | "status" } = {},
  ): KubeObject {
    const type = this.typeOrThrow(target);
    const namespace = type.namespaced ? (target.namespace ?? "default") : undefined;
    const existing = this.state.store.get(type, namespace, target.name);
    if (!existing) throw new SimulatorInputError(`updateAs: ${target.kind} ${target.name} does not exist`);
    const next = structuredClone(existing);
    change(next);
    delete next.metadata?.resourceVersion;
    const write = { manager, operation: "Update" as const, subresource: options.subresource };
    return structuredClone(this.state.replace(type, next, { write, keepStatus: true }));
  }

  private typeOrThrow(object: { apiVersion?: string; kind?: string }) {
    const type = this.state.typeFor(object.apiVersion ?? "", object.kind ?? "");
    if (!type) throw new SimulatorInputError(`unknown kind ${object.apiVersion}/${object.kind}`);
    return type;
  }

  get(apiVersion: string, kind: string, name: string, namespace?: string): KubeObject | undefined {
    this.state.expireEvents();
    const type = this.state.typeFor(apiVersion, kind);
    if (!type) return undefined;
    const object = this.state.store.get(type, type.namespaced ? (namespace ?? "default") : undefined, name);
    return object ? structuredClone(object) : undefined;
  }

  /** All objects of a kind (optionally in one namespace), in the server's list order. */
  list(apiVersion: string, kind: string, namespace?: string): KubeObject[] {
    this.state.expireEvents();
    const type = this.state.typeFor(apiVersion, kind);
    return type ? this.state.store.list(type, namespace).map((o) => structuredClone(o)) : [];
  }

  /** Deletes like `kubectl delete` would (owned objects follow); false when it did not exist. */
  remove(apiVersion: string, kind: string, name: string, namespace?: string): boolean {
    const type = this.state.typeFor(apiVersion, kind);
    if (!type || !this.state.store.get(type, type.namespaced ? (namespace ?? "default") : undefined, name))
      return false;
    this.state.remove(type, type.namespaced ? (namespace ?? "default") : undefined, name);
    return true;
  }

  /** Turns a rendered manifest (YAML or objects) into plausible live state (ReplicaSets, Pods, IPs, events, ...). */
  materialize(manifest: string | object[], options: MaterializeOptions = {}): KubeObject[] {
    const objects = parseObjects(manifest, `manifest for cluster ${this.name}`);
    const exists = (kind: "ConfigMap" | "Secret", namespace: string, name: string) =>
      this.get("v1", kind, name, namespace) !== undefined;
    const made = materialize(objects, { region: this.region, ...options, now: this.state.now(), exists });
    const uids = new Map<string, string>();
    const resolve = (uid: string) =>
      uid.startsWith(OWNER_UID_PREFIX) ? (uids.get(uid.slice(OWNER_UID_PREFIX.length)) ?? uid) : uid;
    return made.map((object) => {
      for (const ref of object.metadata?.ownerReferences ?? []) ref.uid = resolve(ref.uid);
      if (object.kind === "Event") resolveEventUid(object, resolve);
      const stored = this.upsert(object);
      uids.set(
        `${stored.kind}/${stored.metadata?.namespace ?? ""}/${stored.metadata?.name}`,
        stored.metadata?.uid ?? "",
      );
      return stored;
    });
  }

  /** Turns EKS's `audit` log type on or off (the log group stays once created, as on EKS). */
  setAuditLogging(on: boolean): void {
    this.audit.setEnabled(on);
  }

  /**
   * Writes the audit event of a request made as `credentials` (an IAM user's or a role session's) without making
   * it: for seeding history made with the helpers above (e.g. `updateAs("kubectl-patch", ...)` by someone).
   */
  recordAudit(request: {
    credentials: SimCredentials;
    verb: "create" | "update" | "patch" | "delete";
    target: { apiVersion: string; kind: string; name: string; namespace?: string };
    userAgent?: string;
    fieldManager?: string;
    sourceIP?: string;
  }): void {
    const principal = this.principalOf(request.credentials.accessKeyId);
    if (!principal) throw new SimulatorInputError("recordAudit: these credentials are not known to the simulated IAM");
    const type = this.typeOrThrow(request.target);
    const [version] = request.target.apiVersion.split("/").reverse();
    const namespace = type.namespaced ? (request.target.namespace ?? "default") : undefined;
    const base = `${type.group ? `/apis/${type.group}` : "/api"}/${version}${namespace ? `/namespaces/${namespace}` : ""}/${type.plural}`;
    const path = request.verb === "create" ? base : `${base}/${request.target.name}`;
    const at = this.state.now();
    this.audit.record({
      method: { create: "POST", update: "PUT", patch: "PATCH", delete: "DELETE" }[request.verb],
      requestURI: request.fieldManager ? `${path}?fieldManager=${encodeURIComponent(request.fieldManager)}` : path,
      pathname: path,
      verb: request.verb,
      resource: { group: type.group, version, plural: type.plural, namespace, name: request.target.name },
      principal,
      sourceIPs: [request.sourceIP ?? "127.0.0.1"],
      userAgent: request.userAgent ?? "",
      requestBody: Buffer.alloc(0),
      status: request.verb === "create" ? 201 : 200,
      receivedAt: at,
      completedAt: at,
      decision: "allow",
    });
  }

  /** The audit events written so far (delivered to CloudWatch Logs or not), oldest first. */
  auditEvents(): Array<Record<string, unknown>> {
    return this.audit.all().map((entry) => JSON.parse(entry.message));
  }

  /** What the controllers do after an API write, when `controllers` is on. */
  reconcileWrite(object: KubeObject): void {
    if (this.controllers) reconcile(this, object);
  }

  deny(rule: DenyRule): void {
    this.api.denyRules.push({ ...rule });
  }

  /** Every continue token handed out so far answers 410 Gone (Expired), as after an etcd compaction. */
  expireContinueTokens(): void {
    this.state.listChunks.expireAll();
  }

  /**
   * The cluster becomes unreachable (a fleet's fault: a deleted cluster, a closed endpoint): its API server stops
   * listening, so every connection is refused from now on. There is no way back for this simulator run.
   */
  async stopApiServer(): Promise<void> {
    await this.api.stop();
  }

  allowAll(): void {
    this.api.denyRules.length = 0;
  }

  stats(): RequestStats {
    return this.api.stats.snapshot();
  }

  resetStats(): void {
    this.api.stats.reset();
  }

  private upsert(object: KubeObject): KubeObject {
    const type = this.state.typeFor(object.apiVersion ?? "", object.kind ?? "");
    if (!type) {
      throw new SimulatorInputError(
        `cluster ${this.name} has no resource for ${object.apiVersion} ${object.kind} (object "${object.metadata?.name}"); apply its CustomResourceDefinition first`,
      );
    }
    try {
      return structuredClone(this.state.upsert(type, object));
    } catch (error) {
      if (error instanceof ApiError)
        throw new SimulatorInputError(`cluster ${this.name}: ${error.message}`, { cause: error });
      throw error;
    }
  }
}

/** An event made with its involved object: the object's uid, also in the message (kubelet's `name_ns(uid)`). */
function resolveEventUid(event: KubeObject, resolve: (uid: string) => string): void {
  const involved = event.involvedObject as { uid?: string } | undefined;
  if (!involved?.uid) return;
  const placeholder = involved.uid;
  involved.uid = resolve(placeholder);
  if (typeof event.message === "string") event.message = event.message.replace(placeholder, involved.uid);
}
