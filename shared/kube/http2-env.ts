/**
 * client-go's switch, with its name and meaning: `DISABLE_HTTP2` set to anything non-empty keeps every API server
 * on HTTP/1.1 (one connection per request in flight, up to the per-cluster limit) — for a proxy or middlebox in
 * front of a cluster that breaks HTTP/2.
 */
export function http2FromEnv(env: Record<string, string | undefined>): boolean {
  return (env.DISABLE_HTTP2 ?? "").length === 0;
}
