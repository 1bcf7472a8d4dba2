/**
 * Shareable URLs: the page and its state live in the address's hash, so a link to a release, a revision,
 * a time range or a filtered fleet opens the same view (and the static server has one page to serve).
 *   #/                                    fleet   (?cluster=&namespace=&health=&q=&at=)
 *   #/release/CLUSTER/NAMESPACE/NAME      release (?revision=&range=)
 *   #/diff/CLUSTER/NAMESPACE/NAME         snapshot diff (?from=&to=)
 *   #/timeline                            fleet timeline (?range=&cluster=)
 *   #/audits                              audit runs
 */
import { useEffect, useState } from "preact/hooks";
import { query } from "./api.ts";

export interface Route {
  page: "fleet" | "release" | "diff" | "timeline" | "audits" | "unknown";
  release?: { cluster: string; namespace: string; name: string };
  query: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const [path, search = ""] = hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const query = new URLSearchParams(search);
  if (parts.length === 0) return { page: "fleet", query };
  if ((parts[0] === "release" || parts[0] === "diff") && parts.length === 4) {
    return { page: parts[0], release: { cluster: parts[1], namespace: parts[2], name: parts[3] }, query };
  }
  if (parts[0] === "timeline" || parts[0] === "audits") return { page: parts[0], query };
  return { page: "unknown", query };
}

export function href(
  page: Route["page"],
  release?: { cluster: string; namespace: string; name: string },
  params: Record<string, string | number | undefined> = {},
): string {
  const path =
    page === "fleet"
      ? "/"
      : release
        ? `/${page}/${[release.cluster, release.namespace, release.name].map(encodeURIComponent).join("/")}`
        : `/${page}`;
  return `#${path}${query(params)}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", update);
    return () => removeEventListener("hashchange", update);
  }, []);
  return route;
}

/** Changes the query of the current page (a new history entry, so Back undoes a filter). */
export function navigate(to: string): void {
  if (location.hash !== to) location.hash = to;
}
