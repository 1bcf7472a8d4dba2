import { randomBytes } from "node:crypto";
import { Allocators, applyCreateDefaults } from "./defaults.ts";
import { ListChunks } from "./list-chunks.ts";
import { type FieldWrite, prunablePaths, strippedPaths, trackManagedFields } from "./managed-fields.ts";
import { applyMerge, removePath } from "./merge.ts";
import { ApiError, notFound } from "./negotiation.ts";
import { apiVersionOf, qualifiedResource, ResourceRegistry } from "./registry.ts";
import { ObjectStore, rfc3339, type StoreEvent, typeKeyOf } from "./store.ts";
import type { KubeObject, ResourceType, ServerVersion } from "./types.ts";

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

export const SYSTEM_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];

/**
 * One cluster's API semantics over the store: validation, defaulting, uniqueness,
 * optimistic concurrency, CRDs becoming servable, namespace and owner cascades.
 * Both the HTTP handlers and the test-facing `apply()` go through it.
 */
export class ClusterState {
  readonly registry = new ResourceRegistry();
  readonly store = new ObjectStore();
  readonly allocators = new Allocators();
  /** Snapshots behind the continue tokens of chunked LISTs. */
  readonly listChunks = new ListChunks();
  readonly now: () => Date;
  readonly version: ServerVersion;
  /** kube-apiserver's --event-ttl: an event is deleted this long after its last write (an etcd lease). */
  readonly eventTtlMs: number;
  /** When each event (`namespace/name`) was last written, by the object clock. */
  private readonly eventWrites = new Map<string, number>();
  private nextEventExpiry = Number.POSITIVE_INFINITY;

  constructor(options: { now: () => Date; version: ServerVersion; eventTtlMs?: number }) {
    this.now = options.now;
    this.version = options.version;
    this.eventTtlMs = options.eventTtlMs ?? 3_600_000;
    this.store.events.on("change", (event: StoreEvent) => {
      if (event.typeKey !== "|events") return;
      const key = `${event.object.metadata?.namespace ?? ""}/${event.object.metadata?.name ?? ""}`;
      if (event.type === "DELETED") {
        this.eventWrites.delete(key);
        return;
      }
      const at = this.now().getTime();
      this.eventWrites.set(key, at);
      this.nextEventExpiry = Math.min(this.nextEventExpiry, at + this.eventTtlMs);
    });
    const namespaces = this.registry.byKind("v1", "Namespace") as ResourceType;
    for (const name of SYSTEM_NAMESPACES) {
      this.create(namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
    }
  }

  /** Deletes the events whose TTL is over (lazily, before each request reads the store). */
  expireEvents(): void {
    const now = this.now().getTime();
    if (now < this.nextEventExpiry) return;
    const events = this.registry.byKind("v1", "Event") as ResourceType;
    let next = Number.POSITIVE_INFINITY;
    for (const [key, writtenAt] of [...this.eventWrites]) {
      if (writtenAt + this.eventTtlMs > now) {
        next = Math.min(next, writtenAt + this.eventTtlMs);
        continue;
      }
      const slash = key.indexOf("/");
      this.store.remove(events, key.slice(0, slash), key.slice(slash + 1));
    }
    this.nextEventExpiry = next;
  }

  typeFor(apiVersion: string, kind: string): ResourceType | undefined {
    return this.registry.byKind(apiVersion, kind);
  }

  /** `write` (an API request) records managedFields; without it (seeding) the given managedFields are kept. */
  create(
    type: ResourceType,
    input: KubeObject,
    options: { autoNamespace?: boolean; write?: FieldWrite } = {},
  ): KubeObject {
    const object = structuredClone(input);
    const requested = object.apiVersion?.split("/").pop();
    object.apiVersion = apiVersionOf(
      type,
      requested && type.versions.includes(requested) ? requested : type.versions[0],
    );
    object.kind = type.kind;
    object.metadata ??= {};
    const metadata = object.metadata;
    if (!metadata.name && metadata.generateName) {
      metadata.name = `${metadata.generateName}${randomSuffix(5)}`;
    }
    this.validateName(type, metadata.name);
    if (type.namespaced) {
      metadata.namespace ||= "default";
      this.ensureNamespace(metadata.namespace, Boolean(options.autoNamespace));
    } else {
      delete metadata.namespace;
    }
    if (this.store.get(type, metadata.namespace, metadata.name as string)) {
      throw new ApiError(409, "AlreadyExists", `${qualifiedResource(type)} "${metadata.name}" already exists`, {
        name: metadata.name,
        ...(type.group ? { group: type.group } : {}),
        kind: type.plural,
      });
    }
    const defaulted = applyCreateDefaults(object, this.allocators);
    if (options.write) this.recordFields(type, undefined, defaulted, options.write);
    if (type.kind === "CustomResourceDefinition") this.establishCrd(defaulted);
    return this.store.create(type, defaulted, this.now());
  }

  replace(
    type: ResourceType,
    input: KubeObject,
    options: { keepStatus?: boolean; write?: FieldWrite } = {},
  ): KubeObject {
    const metadata = input.metadata ?? {};
    const existing = this.store.get(type, metadata.namespace, metadata.name ?? "");
    if (!existing) throw notFound(type.plural, metadata.name ?? "", type.group);
    if (metadata.resourceVersion && metadata.resourceVersion !== existing.metadata?.resourceVersion) {
      throw new ApiError(
        409,
        "Conflict",
        `Operation cannot be fulfilled on ${qualifiedResource(type)} "${metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
        { name: metadata.name, ...(type.group ? { group: type.group } : {}), kind: type.plural },
      );
    }
    const next = structuredClone(input);
    next.apiVersion = existing.apiVersion;
    next.kind = type.kind;
    if (options.keepStatus && existing.status !== undefined && next.status === undefined) next.status = existing.status;
    if (type.kind === "Service") {
      next.spec ??= {};
      const spec = next.spec as Record<string, unknown>;
      const old = (existing.spec ?? {}) as Record<string, unknown>;
      spec.clusterIP ??= old.clusterIP;
      spec.clusterIPs ??= old.clusterIPs;
    }
    const defaulted = applyCreateDefaults(next, this.allocators);
    if (options.write) this.recordFields(type, existing, defaulted, options.write);
    if (type.kind === "CustomResourceDefinition") this.establishCrd(defaulted);
    return this.store.replace(type, existing, defaulted);
  }

  /**
   * Server-side apply (PATCH application/apply-patch+yaml): the configuration merged into the live object
   * (or created), fields the manager stopped applying pruned, ownership and conflicts as managed-fields.ts says.
   */
  apply(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    config: KubeObject,
    write: FieldWrite,
  ): {
    object: KubeObject;
    created: boolean;
  } {
    const applied: FieldWrite = { ...write, operation: "Apply", config };
    const existing = this.store.get(type, namespace, name);
    const identity = { name, ...(type.namespaced ? { namespace } : {}) };
    if (!existing) {
      const object = { ...config, metadata: { ...config.metadata, ...identity } };
      return { object: this.create(type, object, { write: applied }), created: true };
    }
    const merged = applyMerge(existing, config);
    const strip = strippedPaths(write.subresource, (type.subresources ?? []).includes("status"));
    for (const path of prunablePaths(existing, applied, write.apiVersion ?? existing.apiVersion ?? "", strip))
      removePath(merged, path);
    delete merged.metadata.resourceVersion;
    merged.metadata = { ...merged.metadata, ...identity };
    return { object: this.replace(type, merged, { write: applied, keepStatus: true }), created: false };
  }

  private recordFields(type: ResourceType, live: KubeObject | undefined, next: KubeObject, write: FieldWrite): void {
    const managedFields = trackManagedFields({
      write,
      live,
      next,
      apiVersion: write.apiVersion ?? next.apiVersion ?? "",
      now: rfc3339(this.now()),
      strip: strippedPaths(write.subresource, (type.subresources ?? []).includes("status")),
    });
    next.metadata ??= {};
    if (managedFields && managedFields.length > 0) next.metadata.managedFields = managedFields;
    else delete next.metadata.managedFields;
  }

  /** Deletes an object and what depends on it (namespace contents, owned objects, a CRD's resources). */
  remove(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const removed = this.store.remove(type, namespace, name);
    if (!removed) throw notFound(type.plural, name, type.group);
    if (type.kind === "Namespace") {
      for (const [typeKey, object] of [...this.store.entries()]) {
        if (object.metadata?.namespace !== name) continue;
        const objectType = this.registry.all().find((t) => typeKeyOf(t) === typeKey);
        if (objectType) this.store.remove(objectType, name, object.metadata.name ?? "");
      }
    }
    if (type.kind === "CustomResourceDefinition") {
      const crType = this.registry.unregisterCrd(name);
      if (crType) this.store.dropType(crType);
    }
    this.collectGarbage();
    return removed;
  }

  /** Create-or-replace used by seeding: namespaces appear as needed and given status is kept. */
  upsert(type: ResourceType, input: KubeObject): KubeObject {
    const namespace = type.namespaced ? input.metadata?.namespace || "default" : undefined;
    const object = { ...input, metadata: { ...input.metadata, ...(namespace ? { namespace } : {}) } };
    const existing = this.store.get(type, namespace, object.metadata.name ?? "");
    if (!existing) return this.create(type, object, { autoNamespace: true });
    delete object.metadata.resourceVersion;
    return this.replace(type, object, { keepStatus: true });
  }

  private validateName(type: ResourceType, name: unknown): void {
    const kind = type.group ? `${type.kind}.${type.group}` : type.kind;
    const details = (message: string, field = "metadata.name") => ({
      name: typeof name === "string" ? name : "",
      ...(type.group ? { group: type.group } : {}),
      kind: type.kind,
      causes: [{ reason: name ? "FieldValueInvalid" : "FieldValueRequired", message, field }],
    });
    if (typeof name !== "string" || name === "") {
      const message = "Required value: name or generateName is required";
      throw new ApiError(422, "Invalid", `${kind} "" is invalid: metadata.name: ${message}`, details(message));
    }
    const pattern = type.kind === "Namespace" ? LABEL : SUBDOMAIN;
    const limit = type.kind === "Namespace" ? 63 : 253;
    if (!pattern.test(name) || name.length > limit) {
      const message = `Invalid value: "${name}": ${type.kind === "Namespace" ? SUBDOMAIN_MESSAGE.replace("subdomain", "label") : SUBDOMAIN_MESSAGE}`;
      throw new ApiError(422, "Invalid", `${kind} "${name}" is invalid: metadata.name: ${message}`, details(message));
    }
  }

  private ensureNamespace(namespace: string, create: boolean): void {
    const namespaces = this.registry.byKind("v1", "Namespace") as ResourceType;
    if (this.store.get(namespaces, undefined, namespace)) return;
    if (!create) throw notFound("namespaces", namespace);
    this.create(namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  }

  private establishCrd(crd: KubeObject): void {
    const problem = this.registry.registerCrd(crd);
    if (problem) {
      throw new ApiError(
        422,
        "Invalid",
        `CustomResourceDefinition.apiextensions.k8s.io "${crd.metadata?.name}" is invalid: ${problem}`,
      );
    }
    const at = rfc3339(this.now());
    // biome-ignore lint/suspicious/noExplicitAny: untyped JSON
    const names = (crd.spec as any)?.names;
    crd.status = {
      acceptedNames: names,
      conditions: [
        {
          type: "NamesAccepted",
          status: "True",
          lastTransitionTime: at,
          reason: "NoConflicts",
          message: "no conflicts found",
        },
        {
          type: "Established",
          status: "True",
          lastTransitionTime: at,
          reason: "InitialNamesAccepted",
          message: "the initial names have been accepted",
        },
      ],
      // biome-ignore lint/suspicious/noExplicitAny: untyped JSON
      storedVersions: ((crd.spec as any)?.versions ?? []).filter((v: any) => v.storage).map((v: any) => v.name),
    };
  }

  /** The garbage collector, synchronously: drop objects whose owners are all gone. */
  private collectGarbage(): void {
    for (let round = 0; round < 10; round++) {
      const uids = new Set<string>();
      for (const [, object] of this.store.entries()) if (object.metadata?.uid) uids.add(object.metadata.uid);
      const orphans: Array<[string, KubeObject]> = [];
      for (const entry of this.store.entries()) {
        const owners = entry[1].metadata?.ownerReferences ?? [];
        if (owners.length > 0 && owners.every((o) => !uids.has(o.uid))) orphans.push(entry);
      }
      if (orphans.length === 0) return;
      for (const [typeKey, object] of orphans) {
        const type = this.registry.all().find((t) => typeKeyOf(t) === typeKey);
        if (type) this.store.remove(type, object.metadata?.namespace, object.metadata?.name ?? "");
      }
    }
  }
}

const SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

function randomSuffix(length: number): string {
  return [...randomBytes(length)].map((b) => SUFFIX_ALPHABET[b % SUFFIX_ALPHABET.length]).join("");
}
