export type Representation =
  | { kind: "json" }
  | { kind: "table"; version: "v1" | "v1beta1" }
  | { kind: "partial"; version: "v1" | "v1beta1"; list: boolean }
  | { kind: "discovery"; version: "v2" | "v2beta1" };

export interface NegotiationTargets {
  table?: boolean;
  partial?: boolean;
  discovery?: boolean;
}

interface Clause {
  type: string;
  params: Record<string, string>;
  q: number;
}

function parseAccept(header: string): Clause[] {
  return header
    .split(",")
    .map((raw, index) => {
      const [type, ...rest] = raw.split(";").map((s) => s.trim());
      const params: Record<string, string> = {};
      for (const p of rest) {
        const eq = p.indexOf("=");
        if (eq > 0)
          params[p.slice(0, eq).trim().toLowerCase()] = p
            .slice(eq + 1)
            .trim()
            .replace(/^"|"$/g, "");
      }
      const q = params.q === undefined ? 1 : Number(params.q);
      return { type: type.toLowerCase(), params, q: Number.isNaN(q) ? 0 : q, index };
    })
    .filter((c) => c.type !== "" && c.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
}

/**
 * kube-apiserver's content negotiation (kubernetes-api.md §1.2): clauses in preference
 * order; a clause naming a representation this endpoint cannot serve is skipped (so
 * discovery skips `as=Table`); nothing acceptable means 406. Only JSON is spoken, so
 * protobuf and YAML clauses are skipped too.
 */
export function negotiate(accept: string | undefined, targets: NegotiationTargets): Representation | undefined {
  if (!accept || accept.trim() === "") return { kind: "json" };
  for (const clause of parseAccept(accept)) {
    if (!["application/json", "application/*", "*/*"].includes(clause.type)) continue;
    const { as, g, v } = clause.params;
    if (!as) return { kind: "json" };
    if (as === "Table" && g === "meta.k8s.io" && (v === "v1" || v === "v1beta1") && targets.table) {
      return { kind: "table", version: v };
    }
    if (
      (as === "PartialObjectMetadata" || as === "PartialObjectMetadataList") &&
      g === "meta.k8s.io" &&
      (v === "v1" || v === "v1beta1") &&
      targets.partial
    ) {
      return { kind: "partial", version: v, list: as === "PartialObjectMetadataList" };
    }
    if (
      as === "APIGroupDiscoveryList" &&
      g === "apidiscovery.k8s.io" &&
      (v === "v2" || v === "v2beta1") &&
      targets.discovery
    ) {
      return { kind: "discovery", version: v };
    }
  }
  return undefined;
}

export interface StatusBody {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure" | "Success";
  message?: string;
  reason?: string;
  details?: Record<string, unknown>;
  code: number;
}

/** A `Status` error body as kube-apiserver writes it. */
export function statusBody(
  code: number,
  reason: string,
  message: string,
  details?: Record<string, unknown>,
): StatusBody {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
}

/** An error to answer with a Status body; thrown by handlers, caught by the router. */
export class ApiError extends Error {
  readonly status: StatusBody;
  readonly headers: Record<string, string>;
  constructor(
    code: number,
    reason: string,
    message: string,
    details?: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = statusBody(code, reason, message, details);
    this.headers = headers;
  }
}

export const notFound = (resource: string, name: string, group = "") =>
  new ApiError(404, "NotFound", `${group ? `${resource}.${group}` : resource} "${name}" not found`, {
    name,
    ...(group ? { group } : {}),
    kind: resource,
  });

export const badRequest = (message: string) => new ApiError(400, "BadRequest", message);
