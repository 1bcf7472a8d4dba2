import { canonicaliseResources } from "./quantity.ts";
import type { KubeObject } from "./types.ts";

/** Hands out ClusterIPs and NodePorts the way the service allocators would (EKS's 10.100.0.0/16 service CIDR). */
export class Allocators {
  private nextIp = 10;
  private nextNodePort = 30080;

  clusterIp(): string {
    const n = this.nextIp++;
    return `10.100.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
  }

  nodePort(): number {
    const port = this.nextNodePort++;
    if (this.nextNodePort > 32767) this.nextNodePort = 30000;
    return port;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: defaulting works on untyped JSON
type Json = any;

/**
 * The defaulting and create-time allocation kube-apiserver does before storing, limited
 * to what printers and clients read back (Service type/ClusterIP/ports, replicas, phase).
 */
export function applyCreateDefaults(object: KubeObject, allocators: Allocators): KubeObject {
  const builtin = !(object.apiVersion ?? "").includes(".") || (object.apiVersion ?? "").includes(".k8s.io/");
  // Built-in kinds store quantities in canonical form (0.25 -> 250m); custom resources keep what was sent.
  const o = (builtin ? canonicaliseResources(object) : structuredClone(object)) as Json;
  switch (`${o.apiVersion}/${o.kind}`) {
    case "v1/Service": {
      o.spec ??= {};
      const spec = o.spec;
      spec.type ??= "ClusterIP";
      if (spec.type !== "ExternalName") {
        if (!spec.clusterIP) spec.clusterIP = allocators.clusterIp();
        spec.clusterIPs ??= [spec.clusterIP];
        spec.ipFamilies ??= ["IPv4"];
        spec.ipFamilyPolicy ??= "SingleStack";
        spec.internalTrafficPolicy ??= "Cluster";
      }
      spec.sessionAffinity ??= "None";
      for (const port of spec.ports ?? []) {
        port.protocol ??= "TCP";
        port.targetPort ??= port.port;
        if ((spec.type === "NodePort" || spec.type === "LoadBalancer") && !port.nodePort)
          port.nodePort = allocators.nodePort();
      }
      if (spec.type === "LoadBalancer" || spec.type === "NodePort") spec.externalTrafficPolicy ??= "Cluster";
      o.status ??= { loadBalancer: {} };
      break;
    }
    case "apps/v1/Deployment":
      o.spec ??= {};
      o.spec.replicas ??= 1;
      o.spec.revisionHistoryLimit ??= 10;
      o.spec.progressDeadlineSeconds ??= 600;
      o.spec.strategy ??= { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } };
      break;
    case "apps/v1/StatefulSet":
    case "apps/v1/ReplicaSet":
      o.spec ??= {};
      o.spec.replicas ??= 1;
      break;
    case "batch/v1/Job":
      o.spec ??= {};
      if (o.spec.completions === undefined && o.spec.parallelism === undefined) {
        o.spec.completions = 1;
        o.spec.parallelism = 1;
      }
      o.spec.backoffLimit ??= 6;
      break;
    case "v1/Pod":
      o.spec ??= {};
      o.spec.restartPolicy ??= "Always";
      o.status ??= { phase: "Pending", qosClass: "BestEffort" };
      break;
    case "scheduling.k8s.io/v1/PriorityClass":
      o.preemptionPolicy ??= "PreemptLowerPriority";
      break;
    case "v1/Namespace":
      o.spec ??= { finalizers: ["kubernetes"] };
      o.status ??= { phase: "Active" };
      break;
    case "v1/Secret":
      o.type ??= "Opaque";
      if (o.stringData && typeof o.stringData === "object") {
        o.data ??= {};
        for (const [key, value] of Object.entries(o.stringData))
          o.data[key] = Buffer.from(String(value)).toString("base64");
        delete o.stringData;
      }
      break;
  }
  return o;
}
