/**
 * The release page names who (issue #34, docs/who.md) in a real browser (Debian's chromium driven by
 * playwright-core): the history's Who column and the drift table's CHANGED BY, from the API's dashboard mount on
 * 127.0.0.1 over the simulated EKS (a real patch's managedFields) and attributions as the workers settle them. A
 * session name `<img src=x onerror=alert(1)>` is text: no element, no script. The screenshots are docs/img's
 * `dashboard-who-*.png` (copied from test-artifacts/dashboard/).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type Browser, chromium } from "playwright-core";
import { buildDashboard } from "../../dashboard/build.ts";
import { type LocalServer, startLocalServer } from "../../local/server.ts";
import { type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { parseViewerAccessMap } from "../../shared/access/viewer-access.ts";
import { createKubeReader, type KubeReader } from "../../shared/kube/reader.ts";
import { silentLogger } from "../../shared/ports.ts";
import { memoryHistoryStores } from "../../shared/snapshots/history-stores.ts";
import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { releaseStatus } from "../../shared/usecases/status.ts";
import { MemoryAttributionStore } from "../../shared/who/memory-attribution-store.ts";
import { driftWriteSubject } from "../../shared/who/subjects.ts";
import { testApiHandler } from "../api/support.ts";
import { simConnector } from "../status/sim-connector.ts";
import { ROOT } from "../support/local-start.ts";
import {
  ACCOUNT,
  ALICE,
  found,
  HOSTILE,
  revisionSubject,
  STORE_CLOCK,
  webRevision,
  writeDrift,
} from "../who/support.ts";

const CHROMIUM = "/usr/bin/chromium";
const skip = existsSync(CHROMIUM) ? false : "no chromium";
const artifacts = join(ROOT, "test-artifacts", "dashboard");
const CLUSTER = "demo-us";
let now = Date.parse("2026-12-02T15:00:00Z");
const clock = { now: () => new Date(now) };
let simulated: SimulatedEks | undefined;
const sim = () => simulated!;
const assets = mkdtempSync(join(tmpdir(), "who-dashboard-"));
let server: LocalServer | undefined;
let browser: Browser | undefined;
let kube: KubeReader | undefined;

before(async () => {
  if (skip) return;
  mkdirSync(artifacts, { recursive: true });
  simulated = await startSimulatedEks({ clusters: [{ name: CLUSTER }], now: clock.now });
  await writeDrift(sim().cluster(CLUSTER), (ms) => {
    now += ms;
  });
  now += 5 * 60_000;
  const store = new MemoryReleaseStore();
  await store.putRevision(CLUSTER, webRevision(1, "superseded"));
  await store.putRevision(CLUSTER, webRevision(2, "superseded"));
  await store.putRevision(CLUSTER, webRevision(3, "deployed"));
  const connector = simConnector(sim());
  kube = createKubeReader({ connector, clock });
  const key = { cluster: CLUSTER, namespace: "shop", name: "web" };
  const plain = await releaseStatus({ store, kube, logger: silentLogger }, key);
  const attributions = new MemoryAttributionStore(STORE_CLOCK);
  const ciDeployer = { name: "ci-deployer", type: "assumed-role" as const, role: "github-actions-deploy" };
  await attributions.settle([
    found(revisionSubject(CLUSTER, "shop", "web", 1), { ...ciDeployer, accountId: ACCOUNT }),
    found(revisionSubject(CLUSTER, "shop", "web", 2), HOSTILE),
    found(revisionSubject(CLUSTER, "shop", "web", 3), { ...ciDeployer, arn: ALICE.arn }),
    found(driftWriteSubject(key, plain.drift!.fields[0])!, ALICE),
  ]);
  const dashboard = await buildDashboard(assets);
  const handler = testApiHandler({
    store,
    clusters: connector,
    kube,
    clock,
    historyStores: memoryHistoryStores(),
    history: { auditIntervalSeconds: 300, retentionDays: 90 },
    attributions,
    dashboard: {
      auth: "off",
      groupsClaim: "groups",
      access: parseViewerAccessMap("groups: []\n", "test"),
      assetsDir: dashboard.dir,
      connectOrigins: [],
    },
  });
  server = await startLocalServer({ handler, port: 0 });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"], headless: true });
});

after(async () => {
  await browser?.close().catch(() => {});
  await server?.close();
  kube?.close();
  await simulated?.stop();
  rmSync(assets, { recursive: true, force: true });
});

test("the release page's history names who made each revision and the drift names who patched", { skip }, async () => {
  const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const bodies: string[] = [];
  page.on("response", async (response) => {
    try {
      bodies.push(await response.text());
    } catch {}
  });
  try {
    await page.goto(`${server!.url}/dashboard/#/release/${CLUSTER}/shop/web`);
    const history = page.locator('section[aria-labelledby="history"] table');
    await history.waitFor({ timeout: 30_000 });
    await page
      .locator('section[aria-labelledby="history"] td', { hasText: "ci-deployer" })
      .first()
      .waitFor({ timeout: 30_000 });
    const historyText = (await history.allInnerTexts()).join("\n");
    assert.match(historyText, /Who/);
    assert.match(historyText, /ci-deployer \(github-actions-deploy\)/);
    assert.match(
      historyText,
      /<img src=x onerror=alert\(1\)>\^\[\[31m bob \(ci\)/,
      "the hostile name is text, ESC shown",
    );
    assert.equal(
      await page.locator('section[aria-labelledby="history"] img').count(),
      0,
      "no element made of a session name",
    );
    const tooltip = await page
      .locator('section[aria-labelledby="history"] td', { hasText: "ci-deployer" })
      .first()
      .getAttribute("title");
    assert.match(tooltip ?? "", /create at .* · client says Helm\/4\.1\.0 · from 203\.0\.113\.7/);

    const drift = page.locator("table", { has: page.locator("caption", { hasText: /^DRIFT$/ }) });
    await drift.waitFor({ timeout: 30_000 });
    assert.match(
      (await drift.allInnerTexts()).join("\n"),
      /web-settings\s+data\.LOG_LEVEL\s+info -> debug\s+kubectl-patch by alice@example\.com/,
    );
    assert.deepEqual(dialogs, [], "no script ran");
    for (const body of bodies) assert.doesNotMatch(body, new RegExp(`${ACCOUNT}|arn:aws`), "nothing for a browser");

    await page.locator('section[aria-labelledby="status"]').screenshot({ path: join(artifacts, "who-drift.png") });
    await page.locator('section[aria-labelledby="history"]').screenshot({ path: join(artifacts, "who-history.png") });
  } finally {
    await context.close();
  }
});
