/** What reading one object came to (fetch.ts for a manifest's objects, related-pods.ts for their pods). */
export type ReadOutcome = "found" | "not-found" | "forbidden" | "unknown-kind" | "error" | "not-read-in-time";
