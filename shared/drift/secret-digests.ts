import { createHmac, randomBytes } from "node:crypto";

/**
 * Secret values are redacted at the fetch choke point (shared/kube/fetch.ts) before anything sees a live
 * object, so drift compares them as keyed digests taken there instead. The key is random per process and
 * never leaves it: a digest cannot be looked up in a table of common passwords, and digests are never put in
 * a report, a log or a snapshot (only "changed" is).
 */
const KEY = randomBytes(32);

export function secretDigest(bytes: Uint8Array): string {
  return createHmac("sha256", KEY).update(bytes).digest("base64url");
}

/** The digests of a live v1 Secret's values (data decoded from base64; stringData, rare on a live object, as text). */
export function secretValueDigests(object: Record<string, unknown>): Record<string, string> | undefined {
  if (object.kind !== "Secret" || (object.apiVersion !== "v1" && object.apiVersion !== undefined)) return undefined;
  const digests: Record<string, string> = {};
  const data = object.data;
  if (typeof data === "object" && data !== null) {
    for (const [key, value] of Object.entries(data)) {
      if (typeof value === "string") digests[key] = secretDigest(Buffer.from(value, "base64"));
    }
  }
  const stringData = object.stringData;
  if (typeof stringData === "object" && stringData !== null) {
    for (const [key, value] of Object.entries(stringData)) {
      if (typeof value === "string") digests[key] = secretDigest(Buffer.from(value, "utf8"));
    }
  }
  return digests;
}
