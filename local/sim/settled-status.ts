/**
 * What controllers write into the status of the objects that make no pods (materialize.ts makes the workloads and
 * their pods): a LoadBalancer Service's or an Ingress's address, a bound PVC, an HPA's replicas and metrics, a PDB's
 * counts. Other kinds are left as applied.
 */
import { hashSuffix } from "./names.ts";

// biome-ignore lint/suspicious/noExplicitAny: manifests are arbitrary JSON
type Json = any;

export function settleStatus(o: Json, ns: string, region: string, pendingLoadBalancer: readonly string[]): void {
  switch (`${o.apiVersion}/${o.kind}`) {
    case "v1/Service":
      if (o.spec?.type === "LoadBalancer" && !pendingLoadBalancer.includes(o.metadata.name)) {
        o.status = { loadBalancer: { ingress: [{ hostname: lbHost(o, region) }] } };
      }
      break;
    case "networking.k8s.io/v1/Ingress":
      if (!pendingLoadBalancer.includes(o.metadata.name)) {
        o.status = { loadBalancer: { ingress: [{ hostname: lbHost(o, region) }] } };
      }
      break;
    case "v1/PersistentVolumeClaim":
      o.spec = { storageClassName: "gp2", volumeMode: "Filesystem", ...o.spec };
      o.spec.volumeName ??= `pvc-${hashSuffix(`${ns}/${o.metadata.name}`, 8)}-${hashSuffix(o.metadata.name, 4)}`;
      o.status = {
        phase: "Bound",
        accessModes: o.spec.accessModes ?? ["ReadWriteOnce"],
        capacity: { storage: o.spec.resources?.requests?.storage ?? "1Gi" },
      };
      break;
    case "autoscaling/v2/HorizontalPodAutoscaler": {
      const replicas = o.spec?.minReplicas ?? 1;
      o.status = {
        currentReplicas: replicas,
        desiredReplicas: replicas,
        currentMetrics: (o.spec?.metrics ?? []).map((m: Json) =>
          m.type === "Resource"
            ? {
                type: "Resource",
                resource: { name: m.resource?.name, current: { averageUtilization: 10, averageValue: "10m" } },
              }
            : { type: m.type },
        ),
      };
      break;
    }
    case "policy/v1/PodDisruptionBudget":
      o.status = {
        currentHealthy: 1,
        desiredHealthy: 1,
        disruptionsAllowed: 0,
        expectedPods: 1,
        observedGeneration: 1,
      };
      break;
  }
}

function lbHost(object: Json, region: string): string {
  const base = `k8s-${object.metadata.namespace ?? "default"}-${object.metadata.name}`.slice(0, 32);
  return `${base}-${hashSuffix(object.metadata.name, 10)}.elb.${region}.amazonaws.com`;
}
