import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { KubeObject, ResourceType } from "./types.ts";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

export interface StoreEvent {
  type: WatchEventType;
  typeKey: string;
  object: KubeObject;
}

export const typeKeyOf = (type: { group: string; plural: string }) => `${type.group}|${type.plural}`;
const objectKey = (namespace: string | undefined, name: string) => `${namespace ?? ""}/${name}`;

/**
 * The cluster's etcd: objects per resource (shared by all served versions), a cluster-wide
 * resourceVersion counter, and change events for watches. Lists come back in key order
 * (namespace, then name), which is what etcd range reads give kube-apiserver.
 */
export class ObjectStore {
  readonly events = new EventEmitter();
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  /** Each resource's keys in order, built on the first LIST after a create or delete (kube-apiserver's B-tree). */
  private readonly sortedKeys = new Map<string, string[]>();
  private revision = 1000;

  constructor() {
    this.events.setMaxListeners(0);
  }

  currentRevision(): string {
    return String(this.revision);
  }

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.bucket(type).get(objectKey(type.namespaced ? namespace : undefined, name));
  }

  list(type: ResourceType, namespace?: string): KubeObject[] {
    const bucket = this.bucket(type);
    const prefix = type.namespaced && namespace ? `${namespace}/` : "";
    let keys = this.sortedKeys.get(typeKeyOf(type));
    if (!keys) {
      keys = [...bucket.keys()].sort();
      this.sortedKeys.set(typeKeyOf(type), keys);
    }
    // A namespace's keys are one run of the sorted keys: a namespaced LIST in a cluster of 10,000 Secrets visits
    // only its own, as the watch cache's B-tree does (it used to scan and sort them per request: 5 ms each).
    const objects: KubeObject[] = [];
    for (let i = lowerBound(keys, prefix); i < keys.length && keys[i].startsWith(prefix); i++) {
      objects.push(bucket.get(keys[i]) as KubeObject);
    }
    return objects;
  }

  /** Stores a new object, setting the server-owned metadata. The caller checked it does not exist. */
  create(type: ResourceType, object: KubeObject, now: Date): KubeObject {
    const metadata = object.metadata ?? {};
    const stored: KubeObject = {
      ...object,
      metadata: {
        ...metadata,
        uid: randomUUID(),
        resourceVersion: this.nextRevision(),
        creationTimestamp: metadata.creationTimestamp ?? rfc3339(now),
      },
    };
    if (stored.metadata && !type.namespaced) delete stored.metadata.namespace;
    if (stored.spec !== undefined && stored.metadata) stored.metadata.generation = 1;
    this.sortedKeys.delete(typeKeyOf(type));
    this.bucket(type).set(objectKey(stored.metadata?.namespace, stored.metadata?.name ?? ""), stored);
    this.emit("ADDED", type, stored);
    return stored;
  }

  /** Replaces an existing object, keeping uid/creationTimestamp and bumping resourceVersion (and generation on spec changes). */
  replace(type: ResourceType, previous: KubeObject, next: KubeObject): KubeObject {
    const specChanged = JSON.stringify(previous.spec) !== JSON.stringify(next.spec);
    const generation = (previous.metadata?.generation ?? 0) + (specChanged ? 1 : 0);
    const stored: KubeObject = {
      ...next,
      metadata: {
        ...next.metadata,
        uid: previous.metadata?.uid,
        creationTimestamp: previous.metadata?.creationTimestamp,
        resourceVersion: this.nextRevision(),
        ...(next.spec !== undefined ? { generation: Math.max(generation, 1) } : {}),
      },
    };
    this.bucket(type).set(objectKey(stored.metadata?.namespace, stored.metadata?.name ?? ""), stored);
    this.emit("MODIFIED", type, stored);
    return stored;
  }

  remove(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const key = objectKey(type.namespaced ? namespace : undefined, name);
    const existing = this.bucket(type).get(key);
    if (!existing) return undefined;
    this.bucket(type).delete(key);
    this.sortedKeys.delete(typeKeyOf(type));
    this.nextRevision();
    this.emit("DELETED", type, existing);
    return existing;
  }

  /** All objects of every resource (for garbage collection and namespace deletion). */
  *entries(): Generator<[string, KubeObject]> {
    for (const [typeKey, bucket] of this.objects) for (const object of bucket.values()) yield [typeKey, object];
  }

  /** Drops every object of a resource (a CRD was deleted). */
  dropType(type: ResourceType): void {
    this.objects.delete(typeKeyOf(type));
    this.sortedKeys.delete(typeKeyOf(type));
  }

  private bucket(type: { group: string; plural: string }): Map<string, KubeObject> {
    const key = typeKeyOf(type);
    let bucket = this.objects.get(key);
    if (!bucket) {
      bucket = new Map();
      this.objects.set(key, bucket);
    }
    return bucket;
  }

  private nextRevision(): string {
    this.revision += 1;
    return String(this.revision);
  }

  private emit(type: WatchEventType, resource: ResourceType, object: KubeObject): void {
    this.events.emit("change", { type, typeKey: typeKeyOf(resource), object } satisfies StoreEvent);
  }
}

/** The first index whose key is >= `prefix` in sorted `keys`. */
function lowerBound(keys: readonly string[], prefix: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (keys[mid] < prefix) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Kubernetes timestamps are RFC3339 with second precision. */
export function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
