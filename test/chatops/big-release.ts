/** A 300-resource release for the Block Kit limit checks: 270 ConfigMaps, 20 Services, 10 Deployments, 5 ConfigMaps gone live. */
import type { Release } from "../../shared/release/model.ts";

export const BIG_OMITTED = [3, 50, 99, 150, 201].map((i) => `ConfigMap/big-config-${i}`);

export function bigRelease(): Release {
  const docs: string[] = [];
  for (let i = 0; i < 270; i++) {
    docs.push(
      `---\n# Source: big/templates/configmap-${i}.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big-config-${i}\ndata:\n  KEY: "value-${i}"\n`,
    );
  }
  for (let i = 0; i < 20; i++) {
    docs.push(
      `---\n# Source: big/templates/service-${i}.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: big-svc-${i}\nspec:\n  type: ClusterIP\n  selector:\n    app: big-${i % 10}\n  ports:\n    - port: 80\n`,
    );
  }
  for (let i = 0; i < 10; i++) {
    docs.push(
      `---\n# Source: big/templates/deployment-${i}.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: big-${i}\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: big-${i}\n  template:\n    metadata:\n      labels:\n        app: big-${i}\n    spec:\n      containers:\n        - name: app\n          image: nginx:1.27\n`,
    );
  }
  return {
    name: "big",
    namespace: "shop",
    version: 1,
    info: {
      first_deployed: "2025-11-20T10:00:00Z",
      last_deployed: "2025-11-20T10:00:00Z",
      description: "Install complete",
      status: "deployed",
      notes:
        "Thank you for installing big.\nRun `kubectl get all -l app.kubernetes.io/instance=big`.\nMore lines\nand more.",
    },
    chart: { metadata: { apiVersion: "v2", name: "big", version: "1.0.0", appVersion: "1.0" } },
    manifest: docs.join(""),
    hooks: [],
  };
}
