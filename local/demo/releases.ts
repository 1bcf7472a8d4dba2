/**
 * Demo data for `npm start` (and the API route tests): three releases over two
 * simulated clusters, each showing something `helm status` is for.
 *  - demo-eu shop/web       healthy, 3 revisions (1-2 superseded, 3 deployed), a Secret (shown redacted)
 *  - demo-eu shop/api       a CrashLoopBackOff pod and a ConfigMap deleted out of band, 2 revisions
 *  - demo-us observability/metrics  a ServiceMonitor whose CRD is not installed (unknown kind)
 * Stored the way CI would push them: Helm release Secrets through the import use case.
 */

import type { Release } from "../../shared/release/model.ts";
import type { MaterializeOptions } from "../sim/index.ts";

export interface DemoRelease {
  cluster: string;
  revisions: Release[];
  /** How the deployed revision looks live in the simulated cluster. */
  live: MaterializeOptions;
}

export const DEMO_CLUSTERS = [
  { name: "demo-eu", region: "eu-west-1" },
  { name: "demo-us", region: "us-east-1" },
] as const;

const labels = (name: string) => `      labels:\n        app.kubernetes.io/name: ${name}\n`;

function deployment(name: string, image: string, replicas: number): string {
  return `---
# Source: ${name}/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app.kubernetes.io/name: ${name}
  template:
    metadata:
${labels(name)}    spec:
      containers:
        - name: ${name}
          image: ${image}
          ports:
            - containerPort: 8080
`;
}

function service(name: string): string {
  return `---
# Source: ${name}/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: ${name}
spec:
  type: ClusterIP
  selector:
    app.kubernetes.io/name: ${name}
  ports:
    - port: 80
      targetPort: 8080
`;
}

function configMap(name: string, value: string): string {
  return `---
# Source: ${name}/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}-config
data:
  LOG_LEVEL: "${value}"
`;
}

const webSecret = `---
# Source: web/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: web-credentials
type: Opaque
data:
  password: ZGVtby1wYXNzd29yZA==
`;

const serviceMonitor = `---
# Source: metrics/templates/servicemonitor.yaml
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: metrics
spec:
  selector:
    matchLabels:
      app.kubernetes.io/name: metrics
  endpoints:
    - port: http
`;

function revision(
  name: string,
  namespace: string,
  version: number,
  status: "deployed" | "superseded",
  day: number,
  chart: { name: string; version: string; appVersion: string },
  manifest: string,
  notes?: string,
): Release {
  const at = `2025-11-${String(day).padStart(2, "0")}T09:${String(10 + version).padStart(2, "0")}:00.123456789Z`;
  return {
    name,
    namespace,
    version,
    info: {
      first_deployed: "2025-11-01T09:11:00.123456789Z",
      last_deployed: at,
      description: version === 1 ? "Install complete" : "Upgrade complete",
      status,
      ...(notes ? { notes } : {}),
    },
    chart: { metadata: { apiVersion: "v2", ...chart } },
    config: { replicaCount: 2, image: { tag: chart.appVersion } },
    manifest,
    labels: {},
  };
}

export function demoReleases(): DemoRelease[] {
  const web = (v: number, status: "deployed" | "superseded", tag: string, level: string) =>
    revision(
      "web",
      "shop",
      v,
      status,
      v * 5,
      { name: "web", version: `1.${v}.0`, appVersion: tag },
      service("web") + deployment("web", `nginx:${tag}`, 2) + configMap("web", level) + webSecret,
      "Visit http://web.shop.svc.cluster.local",
    );
  const api = (v: number, status: "deployed" | "superseded") =>
    revision(
      "api",
      "shop",
      v,
      status,
      v * 6,
      { name: "api", version: `0.${v}.0`, appVersion: `2.${v}` },
      service("api") + deployment("api", `ghcr.io/example/api:2.${v}`, 1) + configMap("api", "debug"),
    );
  const metrics = revision(
    "metrics",
    "observability",
    1,
    "deployed",
    20,
    { name: "metrics", version: "4.0.1", appVersion: "0.77.1" },
    service("metrics") + deployment("metrics", "quay.io/prometheus/node-exporter:v1.8.2", 1) + serviceMonitor,
  );
  return [
    {
      cluster: "demo-eu",
      revisions: [
        web(1, "superseded", "1.27", "info"),
        web(2, "superseded", "1.28", "info"),
        web(3, "deployed", "1.29", "warn"),
      ],
      live: { namespace: "shop" },
    },
    {
      cluster: "demo-eu",
      revisions: [api(1, "superseded"), api(2, "deployed")],
      live: { namespace: "shop", crashLoop: ["api"], omit: ["ConfigMap/api-config"] },
    },
    // The CRD is not installed, so the ServiceMonitor cannot exist live: status reports its kind as unknown.
    {
      cluster: "demo-us",
      revisions: [metrics],
      live: { namespace: "observability", omit: ["ServiceMonitor/metrics"] },
    },
  ];
}
