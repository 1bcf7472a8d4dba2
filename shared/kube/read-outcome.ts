/** What reading one object came to (fetch.ts for a manifest's objects, related-pods.ts for their pods). */
/** `outside-access`: in a namespace the caller may not read (clusters/namespace-access.ts), so never requested. */
export type ReadOutcome =
  | "found"
  | "not-found"
  | "forbidden"
  | "unknown-kind"
  | "error"
  | "not-read-in-time"
  | "outside-access";
