import { request } from "node:https";
import type { SimCluster } from "../../local/sim/index.ts";

export const TABLE_ACCEPT =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
export const AGGREGATED_ACCEPT =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test replies are inspected field by field
  json: any;
}

/** One HTTPS request to a simulated cluster, TLS verified against its CA, with its token unless overridden. */
export function call(
  cluster: SimCluster,
  path: string,
  options: {
    method?: string;
    accept?: string;
    token?: string | null;
    body?: unknown;
    headers?: Record<string, string>;
  } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.accept) headers.accept = options.accept;
  const token = options.token === undefined ? cluster.token() : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (body && !headers["content-type"]) headers["content-type"] = "application/json";
  return new Promise((resolve, reject) => {
    const req = request(
      `${cluster.server}${path}`,
      { method: options.method ?? "GET", headers, ca: Buffer.from(cluster.caData, "base64"), timeout: 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("request timed out")));
    req.on("error", reject);
    req.end(body);
  });
}
