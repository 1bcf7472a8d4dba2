import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { kubeToolsEnv } from "../support/kube-tools.ts";

/**
 * A small chart for the drift tests, installed with the real helm 4 (server-side apply): a Deployment with two
 * containers (ports, env, quantities), a second Deployment under an HPA, a ConfigMap, a Secret and a Service.
 */

export const PASSWORD = "s3cret-password";

const FILES: Record<string, string> = {
  "Chart.yaml": 'apiVersion: v2\nname: shop\nversion: 0.1.0\nappVersion: "1.0"\n',
  "templates/web.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: app
          image: nginx:1.25
          ports:
            - containerPort: 8080
          env:
            - name: MODE
              value: prod
          resources:
            limits: {cpu: 500m, memory: 1Gi}
            requests: {cpu: "0.25", memory: 256Mi}
        - name: sidecar
          image: busybox:1.36
`,
  "templates/worker.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-worker
spec:
  replicas: 1
  selector:
    matchLabels: {app: worker}
  template:
    metadata:
      labels: {app: worker}
    spec:
      containers:
        - name: worker
          image: busybox:1.36
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ .Release.Name }}-worker
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: {{ .Release.Name }}-worker}
  minReplicas: 1
  maxReplicas: 10
  metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}
`,
  "templates/settings.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
data:
  LOG_LEVEL: info
  FEATURE_X: "on"
---
apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-credentials
type: Opaque
data:
  password: ${Buffer.from(PASSWORD).toString("base64")}
  user: ${Buffer.from("shop").toString("base64")}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-web
spec:
  selector: {app: web}
  ports:
    - port: 80
      targetPort: 8080
`,
};

export async function writeChart(dir: string): Promise<string> {
  const chart = join(dir, "shop");
  for (const [name, text] of Object.entries(FILES)) {
    await mkdir(join(chart, name, ".."), { recursive: true });
    await writeFile(join(chart, name), text);
  }
  return chart;
}

const run = promisify(execFile);

/** Runs a real kubectl/helm with a private HOME and caches; returns stdout (throws with stderr on failure). */
export function toolRunner(home: string, kubeconfig: string) {
  const env = kubeToolsEnv(home, kubeconfig);
  return async (binary: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> => {
    try {
      return (await run(binary, args, { env: { ...env, ...extraEnv }, timeout: 60_000 })).stdout;
    } catch (error) {
      const e = error as { stderr?: string; message: string };
      throw new Error(`${binary} ${args.join(" ")}: ${e.stderr || e.message}`);
    }
  };
}
