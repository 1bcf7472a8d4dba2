/**
 * The dashboard's entry: read the server's settings, sign in when it asks for it, then render the page the
 * URL names. One bundle, no framework beyond preact; charts are plain SVG.
 */
import { render } from "preact";
import { getJson, setApiBase } from "./api.ts";
import { type AuthConfig, authMode, initAuth, signedInAs, signOut } from "./auth.ts";
import { AuditsPage } from "./pages/audits.tsx";
import { DiffPage } from "./pages/diff.tsx";
import { FleetPage } from "./pages/fleet.tsx";
import { ReleasePage } from "./pages/release.tsx";
import { TimelinePage } from "./pages/timeline.tsx";
import { href, type Route, useRoute } from "./route.ts";
import { useLoad } from "./ui.tsx";
import "./styles.css";

const NAV: [Route["page"], string][] = [
  ["fleet", "Fleet"],
  ["timeline", "Timeline"],
  ["audits", "Audits"],
];

function App() {
  const route = useRoute();
  const clusters = useLoad("clusters", () => getJson<{ clusters: { name: string }[] }>("/clusters"));
  const names = clusters.data?.clusters.map((c) => c.name) ?? [];
  const path = route.release ? `${route.release.cluster}/${route.release.namespace}/${route.release.name}` : "";
  return (
    <>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header>
        <a class="brand" href={href("fleet")}>
          helm status
        </a>
        <nav aria-label="Pages">
          {NAV.map(([page, label]) => (
            <a key={page} href={href(page)} aria-current={route.page === page ? "page" : undefined}>
              {label}
            </a>
          ))}
        </nav>
        {authMode() === "oidc" ? (
          <span class="who">
            {signedInAs()}{" "}
            <button type="button" onClick={() => signOut()}>
              Sign out
            </button>
          </span>
        ) : null}
      </header>
      <div id="content">
        {route.page === "fleet" && <FleetPage route={route} clusters={names} />}
        {route.page === "release" && <ReleasePage key={`${path}@${route.query.get("revision") ?? ""}`} route={route} />}
        {route.page === "diff" && <DiffPage route={route} />}
        {route.page === "timeline" && <TimelinePage route={route} clusters={names} />}
        {route.page === "audits" && <AuditsPage route={route} />}
        {route.page === "unknown" && (
          <main>
            <h1>Not a page</h1>
            <p>
              <a href={href("fleet")}>Back to the fleet</a>
            </p>
          </main>
        )}
      </div>
    </>
  );
}

async function boot(): Promise<void> {
  const root = document.getElementById("app")!;
  try {
    const config = (await (await fetch("config.json")).json()) as { apiBase: string; auth: AuthConfig };
    setApiBase(config.apiBase);
    await initAuth(config.auth);
    root.textContent = "";
    render(<App />, root);
  } catch (error) {
    root.textContent = `The dashboard could not start: ${(error as Error).message}`;
  }
}

void boot();
