/**
 * The dashboard in a real browser (Debian's chromium driven by playwright-core) against `npm start`'s stack
 * (DynamoDB Local, the simulated EKS, audits every 5 s) with sign-in on: a real OpenID Provider on loopback
 * (test/support/oidc-provider.ts), the authorization code flow with PKCE in the page, tokens checked by
 * npm start's stand-in for API Gateway's JWT authorizer, and DASHBOARD_ACCESS by the token's groups.
 * Screenshots of every page go to test-artifacts/dashboard/ (git-ignored).
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { type LocalStart, ROOT, spawnLocalStart } from "../support/local-start.ts";
import { startOidcProvider, type TestOidcProvider } from "../support/oidc-provider.ts";

const CHROMIUM = "/usr/bin/chromium";
const hasJava = spawnSync("java", ["-version"]).status === 0;
const skip = !hasJava ? "no java for DynamoDB Local" : !existsSync(CHROMIUM) ? "no chromium" : false;
const artifacts = join(ROOT, "test-artifacts", "dashboard");
/** The demo's one Secret value (local/demo/releases.ts), and its base64: neither may reach the browser. */
const SECRET_VALUES = ["demo-password", "ZGVtby1wYXNzd29yZA=="];

const dataDir = mkdtempSync(join(tmpdir(), "helm-status-dashboard-"));
let child: ChildProcess | undefined;
let idp: TestOidcProvider | undefined;
let browser: Browser | undefined;
let url = "";
let start: LocalStart | undefined;

before(async () => {
  if (skip) return;
  mkdirSync(artifacts, { recursive: true });
  // The provider must know the page's address before npm start picks its port: a fixed redirect on a port we
  // reserve by asking the OS for a free one first.
  const probe = await import("node:net").then(
    (net) =>
      new Promise<number>((resolve) => {
        const s = net.createServer().listen(0, "127.0.0.1", () => {
          const { port } = s.address() as { port: number };
          s.close(() => resolve(port));
        });
      }),
  );
  url = `http://127.0.0.1:${probe}`;
  idp = await startOidcProvider({
    redirectUri: `${url}/dashboard/`,
    accounts: { admin: ["platform-admins"], usonly: ["team-us"] },
  });
  start = spawnLocalStart("node", ["local/start.ts"], {
    dataDir,
    env: {
      PORT: String(probe),
      AUDIT_INTERVAL: "5",
      DEMO_API_RECOVERS_AFTER: "0",
      DASHBOARD_OIDC_ISSUER: idp.issuer,
      DASHBOARD_OIDC_CLIENT_ID: idp.clientId,
      DASHBOARD_ACCESS: JSON.stringify({
        groups: [
          { group: "platform-admins", clusters: "*" },
          { group: "team-us", clusters: ["demo-us"] },
        ],
      }),
    },
  });
  child = start.child;
  await start.waitFor(/Dashboard ready on (http:\/\/127\.0\.0\.1:\d+)\/dashboard\//, 120_000);
  // Audits every 5 s: by the time a person reaches the api page, its stretch was seen by two runs or more.
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"], headless: true });
});

after(async () => {
  if (!skip) writeFileSync(join(artifacts, "npm-start.log"), start?.output() ?? "");
  await browser?.close().catch(() => {});
  if (child?.pid && child.exitCode === null) {
    try {
      process.kill(-child.pid, "SIGINT");
      await new Promise((resolve) => setTimeout(resolve, 3000));
      if (child.exitCode === null) process.kill(-child.pid, "SIGKILL");
    } catch {}
  }
  await idp?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A signed-in page, with every response body kept to check for secrets. */
async function signIn(
  login: string,
): Promise<{ context: BrowserContext; page: Page; bodies: string[]; token: () => string }> {
  const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const bodies: string[] = [];
  let token = "";
  page.on("request", (request) => {
    const header = request.headers().authorization;
    if (header?.startsWith("Bearer ")) token = header.slice(7);
  });
  page.on("response", async (response) => {
    try {
      bodies.push(await response.text());
    } catch {}
  });
  await page.goto(`${url}/dashboard/`);
  await page.locator('input[name="login"]').fill(login, { timeout: 20_000 });
  await page.locator('input[name="password"]').fill("any");
  await page.locator('button[type="submit"]').click();
  await page.locator('button:has-text("Continue")').click({ timeout: 20_000 });
  await page.locator("table.fleet").waitFor({ timeout: 30_000 });
  return { context, page, bodies, token: () => token };
}

function noSecrets(where: string, texts: string[]): void {
  for (const text of texts) {
    for (const secret of SECRET_VALUES) assert.ok(!text.includes(secret), `${where} holds the Secret value ${secret}`);
  }
}

/** Tab through the page (bounded) and check every visible control got the focus once. */
async function keyboardReachesEverything(page: Page): Promise<void> {
  // Strings, not functions: this runs in the page (the tests' TypeScript has no DOM types).
  const controls =
    (await page.evaluate(`[...document.querySelectorAll("a[href], button:not([disabled]), select, input, [tabindex='0']")]
      .filter((e) => e.getClientRects().length > 0)
      .map((e, i) => { e.dataset.k = String(i); return i; })`)) as number[];
  const reached = new Set<string>();
  await page.evaluate("document.activeElement && document.activeElement.blur()");
  for (let i = 0; i < controls.length + 10 && reached.size < controls.length; i++) {
    await page.keyboard.press("Tab");
    const k = (await page.evaluate(
      "document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.k : undefined",
    )) as string | undefined;
    if (k !== undefined) reached.add(k);
  }
  assert.equal(reached.size, controls.length, `Tab reached ${reached.size} of ${controls.length} controls`);
}

test("the dashboard signed in as an admin: fleet, api's failure and timeline, web's drift, no Secret value, keyboard", {
  skip,
  timeout: 240_000,
}, async () => {
  const { context, page, bodies } = await signIn("admin");
  const fleet = page.locator("table.fleet tbody tr");
  await assert.doesNotReject(fleet.filter({ hasText: "metrics" }).waitFor());
  const rows = await fleet.allInnerTexts();
  assert.equal(rows.length, 3, rows.join("\n"));
  assert.match(rows[0], /Failed\s+shop\/api\s+demo-eu/);
  assert.ok(
    rows.some((r) => /Current\s+shop\/web\s+demo-eu/.test(r) && /1 drifted/.test(r)),
    rows.join("\n"),
  );
  assert.ok(rows.some((r) => /observability\/metrics\s+demo-us/.test(r)));
  await page.screenshot({ path: join(artifacts, "fleet.png"), fullPage: true });
  await keyboardReachesEverything(page);

  // One status read per release page load (the JSON; the helm text only when asked for): one cluster fan-out.
  const statusReads: string[] = [];
  page.on("request", (request) => {
    if (/\/releases\/[^/]+\/status$/.test(new URL(request.url()).pathname)) statusReads.push(request.url());
  });
  await page.getByRole("link", { name: "shop/api" }).click();
  await page.locator("td.bad", { hasText: /^CrashLoopBackOff$/ }).waitFor({ timeout: 30_000 });
  const missing = page.locator("table", { has: page.locator("caption", { hasText: /^MISSING$/ }) });
  assert.match((await missing.allInnerTexts()).join("\n"), /v1\/ConfigMap\s+api-config\s+not found/);
  await page.getByRole("link", { name: "1h" }).click();
  const stripe = page.locator("rect.stripe.h-Failed").first();
  await stripe.waitFor();
  const label = (await stripe.getAttribute("aria-label")) ?? "";
  const seen = Number(/seen (\d+) times/.exec(label)?.[1]);
  assert.ok(seen >= 2, `the stretch was seen by ${seen} audit runs: ${label}`);
  await stripe.focus();
  assert.match((await page.locator("figure.timeline figcaption").allInnerTexts()).join("\n"), /Failed .* revision 2/);
  // The health colours are set through the CSSOM under the page's CSP (style-src 'self'): painted, not blocked.
  const painted = (selector: string, property: "fill" | "backgroundColor") =>
    page
      .locator(selector)
      .first()
      .evaluate((e, p) => e.ownerDocument.defaultView!.getComputedStyle(e)[p], property);
  assert.equal(await painted("rect.stripe.h-Failed", "fill"), "rgb(198, 40, 40)");
  assert.equal(await painted("figure.timeline figcaption .health.h-Failed", "backgroundColor"), "rgb(198, 40, 40)");
  // The range's reliability figures: the report's own use case (the CLI's `reliability`), never healthy while Failed.
  const reliability = page.locator("section.reliability", { hasText: "Reliability over 1h" });
  await reliability.waitFor();
  const figures = (await reliability.allInnerTexts()).join("\n");
  assert.match(figures, /Availability\s+0\.0%/);
  assert.match(figures, /Incidents\s+1 \(1 open\)/);
  assert.match(figures, /Coverage\s+\d+(\.\d+)?%/);
  assert.equal(statusReads.length, 1, `status requests for one page load: ${statusReads.join(", ")}`);
  // The helm status text is read when its section is opened, once.
  await page.locator("details", { hasText: "helm status text" }).locator("summary").click();
  await page.locator("pre.text", { hasText: "==> v1/Pod(related)" }).waitFor();
  assert.equal(statusReads.length, 2);
  await page.screenshot({ path: join(artifacts, "release-api.png"), fullPage: true });
  await keyboardReachesEverything(page);

  await page.goto(`${url}/dashboard/#/release/demo-eu/shop/web`);
  const drift = page.locator("table", { has: page.locator("caption", { hasText: /^DRIFT$/ }) });
  await drift.waitFor({ timeout: 30_000 });
  assert.match(
    (await drift.allInnerTexts()).join("\n"),
    /web-config\s+data\.LOG_LEVEL\s+warn -> debug\s+kubectl-patch/,
  );
  await page.locator("details", { hasText: "Secret values redacted" }).locator("summary").click();
  await page.locator("pre.text", { hasText: "kind: Secret" }).waitFor();
  await page.screenshot({ path: join(artifacts, "release-web.png"), fullPage: true });

  for (const [name, hash, ready] of [
    ["timeline", "#/timeline?range=1h", "section.reliability dd"],
    ["audits", "#/audits", "main table tbody tr"],
    ["diff", "#/diff/demo-eu/shop/api", "main select"],
  ] as const) {
    await page.goto(`${url}/dashboard/${hash}`);
    await page.locator(ready).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
    noSecrets(`the ${name} page`, [await page.content()]);
  }
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${url}/dashboard/`);
  await page.locator("table.fleet").waitFor();
  await page.screenshot({ path: join(artifacts, "fleet-phone.png"), fullPage: true });
  noSecrets("the network responses", bodies);
  noSecrets("the DOM", [await page.content()]);
  await context.close();
});

test("a person whose groups allow only demo-us sees no demo-eu release, and the API refuses demo-eu to their token", {
  skip,
  timeout: 120_000,
}, async () => {
  const { context, page, token } = await signIn("usonly");
  const rows = await page.locator("table.fleet tbody tr").allInnerTexts();
  assert.deepEqual(
    rows.map((r) => /(\S+\/\S+)\s+(demo-\w+)/.exec(r)?.slice(1).join(" ")),
    ["observability/metrics demo-us"],
  );
  assert.deepEqual(await page.locator("select option").allInnerTexts(), ["all", "demo-us"]);
  const bearer = { authorization: `Bearer ${token()}` };
  const denied = await fetch(`${url}/dashboard/api/clusters/demo-eu/namespaces/shop/releases/api/status`, {
    headers: bearer,
  });
  assert.equal(denied.status, 403);
  assert.match(await denied.text(), /AccessDenied/);
  const fleet = await fetch(`${url}/dashboard/api/fleet/releases?cluster=demo-eu`, { headers: bearer });
  assert.equal(fleet.status, 403);
  const allowed = await fetch(
    `${url}/dashboard/api/clusters/demo-us/namespaces/observability/releases/metrics/history`,
    {
      headers: bearer,
    },
  );
  assert.equal(allowed.status, 200);
  const anonymous = await fetch(`${url}/dashboard/api/fleet/releases`);
  assert.equal(anonymous.status, 401);
  const forged = await fetch(`${url}/dashboard/api/fleet/releases`, {
    headers: { authorization: `Bearer ${token().slice(0, -4)}AAAA` },
  });
  assert.equal(forged.status, 401);
  await context.close();
});
