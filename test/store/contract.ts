/**
 * The one contract every ReleaseStore honours; run against the in-memory store and
 * DynamoDB Local. `makeStore` returns a fresh, empty store for each test.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ReleaseKey } from "../../shared/release/model.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import { makeRelease, uniqueName } from "./fixtures.ts";

export function storeContract(label: string, makeStore: () => Promise<ReleaseStore>): void {
  const key = (name: string, namespace = "default", cluster = "local"): ReleaseKey => ({ cluster, namespace, name });

  describe(`${label}: ReleaseStore contract`, () => {
    test("a stored revision reads back identical, in Helm's field order", async () => {
      const store = await makeStore();
      const release = makeRelease({ name: uniqueName() });
      assert.equal(await store.putRevision("local", release), "created");
      const read = await store.getRevision(key(release.name), 1);
      assert.deepEqual(read, release);
      assert.equal(JSON.stringify(read), JSON.stringify(release));
    });

    test("provenance: kept beside each revision, outside its content; absent on revisions stored without it", async () => {
      const store = await makeStore();
      const name = uniqueName();
      const source = { kind: "Secret" as const, namespace: "default", uid: "uid-1", via: "sync" as const };
      assert.equal(await store.putRevision("local", makeRelease({ name, version: 1 })), "created");
      assert.equal(await store.putRevision("local", makeRelease({ name, version: 2 }), source), "created");
      assert.deepEqual(await store.revisionSources(key(name)), [{ revision: 2, source }, { revision: 1 }]);
      // Read back as Helm's document only: provenance is not part of the release.
      assert.deepEqual(await store.getLatest(key(name)), makeRelease({ name, version: 2 }));
      // Same content from another object: provenance written, the revision unchanged.
      const moved = { ...source, kind: "ConfigMap" as const, uid: "uid-2" };
      assert.equal(await store.putRevision("local", makeRelease({ name, version: 1 }), moved), "unchanged");
      // A status rewrite without a source keeps the stored one.
      assert.equal(
        await store.putRevision("local", makeRelease({ name, version: 2, status: "superseded" })),
        "updated",
      );
      assert.deepEqual(await store.revisionSources(key(name)), [
        { revision: 2, source },
        { revision: 1, source: moved },
      ]);
      assert.deepEqual(await store.revisionSources(key(uniqueName())), []);
    });

    test("unknown release or revision is ReleaseNotFoundError with Helm's text", async () => {
      const store = await makeStore();
      const name = uniqueName();
      await assert.rejects(store.getRevision(key(name), 1), {
        name: "ReleaseNotFoundError",
        message: "release: not found",
      });
      await assert.rejects(store.getLatest(key(name)), { name: "ReleaseNotFoundError" });
      await assert.rejects(store.history(key(name)), { name: "ReleaseNotFoundError" });
      await store.putRevision("local", makeRelease({ name }));
      await assert.rejects(store.getRevision(key(name), 2), { name: "ReleaseNotFoundError" });
      await assert.rejects(store.getRevision(key(name, "other"), 1), { name: "ReleaseNotFoundError" });
      await assert.rejects(store.getRevision(key(name, "default", "other"), 1), { name: "ReleaseNotFoundError" });
    });

    test("latest is the highest revision of any status, whatever the write order", async () => {
      const store = await makeStore();
      const name = uniqueName();
      await store.putRevision("local", makeRelease({ name, version: 1, status: "superseded" }));
      await store.putRevision("local", makeRelease({ name, version: 3, status: "failed" }));
      await store.putRevision("local", makeRelease({ name, version: 2, status: "superseded" }));
      const latest = await store.getLatest(key(name));
      assert.equal(latest.version, 3);
      assert.equal(latest.info?.status, "failed");
      assert.equal(latest.manifest, makeRelease({ name, version: 3 }).manifest);
    });

    test("re-putting is idempotent; different content is a conflict and nothing is overwritten", async () => {
      const store = await makeStore();
      const release = makeRelease({ name: uniqueName() });
      await store.putRevision("local", release);
      assert.equal(await store.putRevision("local", structuredClone(release)), "unchanged");
      const changed = { ...release, manifest: `${release.manifest}# changed\n` };
      await assert.rejects(store.putRevision("local", changed), { name: "ReleaseConflictError", kind: "conflict" });
      const changedValues = { ...release, config: { replicaCount: 3 } };
      await assert.rejects(store.putRevision("local", changedValues), { name: "ReleaseConflictError" });
      assert.deepEqual(await store.getRevision(key(release.name), 1), release);
    });

    test("a re-put that only changes what Helm rewrites in place (status, description) is an update", async () => {
      const store = await makeStore();
      const release = makeRelease({ name: uniqueName() });
      await store.putRevision("local", release);
      const superseded = structuredClone(release);
      superseded.info!.status = "superseded";
      superseded.hooks![0].last_run = { phase: "Failed", started_at: "2026-12-03T00:00:00Z" };
      assert.equal(await store.putRevision("local", superseded), "updated");
      assert.deepEqual(await store.getRevision(key(release.name), 1), superseded);
      assert.equal(await store.putRevision("local", superseded), "unchanged");
    });

    test("concurrent writers of the same revision: exactly one wins", async () => {
      const store = await makeStore();
      const name = uniqueName();
      const writers = [1, 2, 3, 4].map((i) => makeRelease({ name, version: 2, description: `writer ${i}` }));
      // Make content differ beyond the mutable description.
      writers.forEach((release, i) => {
        release.manifest += `# writer ${i}\n`;
      });
      const results = await Promise.allSettled(writers.map((release) => store.putRevision("local", release)));
      const won = results.filter((r) => r.status === "fulfilled");
      assert.equal(won.length, 1, JSON.stringify(results.map((r) => r.status)));
      assert.equal((won[0] as PromiseFulfilledResult<string>).value, "created");
      for (const lost of results.filter((r) => r.status === "rejected")) {
        assert.equal((lost as PromiseRejectedResult).reason.name, "ReleaseConflictError");
      }
      const stored = await store.getRevision(key(name), 2);
      assert.ok(writers.some((w) => w.manifest === stored.manifest));
      assert.equal((await store.getLatest(key(name))).manifest, stored.manifest);
    });

    test("concurrent identical writers: one created, the others unchanged", async () => {
      const store = await makeStore();
      const release = makeRelease({ name: uniqueName() });
      const results = await Promise.all([1, 2, 3].map(() => store.putRevision("local", structuredClone(release))));
      assert.deepEqual(results.sort(), ["created", "unchanged", "unchanged"]);
    });

    test("history: metadata only, newest first, paginated with opaque cursors", async () => {
      const store = await makeStore();
      const name = uniqueName();
      for (const version of [1, 2, 3, 4, 5]) {
        await store.putRevision(
          "local",
          makeRelease({ name, version, status: version === 5 ? "deployed" : "superseded" }),
        );
      }
      const seen: number[][] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 5; page++) {
        const result = await store.history(key(name), { limit: 2, cursor });
        seen.push(result.items.map((item) => item.version));
        for (const item of result.items) {
          assert.equal("manifest" in item, false);
          assert.equal("manifest" in (item.hooks?.[0] ?? {}), false);
          assert.equal(item.hooks?.[0].last_run?.phase, "Succeeded");
        }
        cursor = result.cursor;
        if (!cursor) break;
        assert.match(cursor, /^[A-Za-z0-9_-]+$/);
      }
      assert.deepEqual(seen, [[5, 4], [3, 2], [1]]);
      const all = await store.history(key(name));
      assert.equal(all.cursor, undefined);
      assert.equal(all.items[0].info?.status, "deployed");
      assert.equal(all.items[0].config?.replicaCount, 2);
    });

    test("malformed, foreign and tampered cursors and bad limits are validation errors", async () => {
      const store = await makeStore();
      const name = uniqueName();
      for (const version of [1, 2, 3]) await store.putRevision("local", makeRelease({ name, version }));
      const page = await store.history(key(name), { limit: 1 });
      const listPage = await store.listReleases({ cluster: "local" }, { limit: 1 });
      const bad = ["not a cursor!", "", "e30", Buffer.from('{"k":"history","p":{"before":"x"}}').toString("base64url")];
      for (const cursor of bad) {
        await assert.rejects(store.history(key(name), { cursor }), { kind: "validation" }, cursor);
      }
      if (listPage.cursor) {
        await assert.rejects(store.history(key(name), { cursor: listPage.cursor }), { name: "InvalidCursorError" });
      }
      await assert.rejects(store.listReleases({}, { cursor: page.cursor! }), { name: "InvalidCursorError" });
      await assert.rejects(store.history(key(name), { limit: 0 }), { kind: "validation" });
      await assert.rejects(store.listReleases({}, { limit: 1.5 }), { kind: "validation" });
    });

    test("a listing cursor only continues the listing it came from (another cluster or namespace is refused)", async () => {
      const store = await makeStore();
      const cluster = `c${uniqueName()}`.slice(0, 40);
      for (const name of ["a", "b", "c"]) {
        await store.putRevision(cluster, makeRelease({ name }));
        await store.putRevision(`${cluster}x`, makeRelease({ name }));
      }
      const first = await store.listReleases({ cluster }, { limit: 1 });
      assert.ok(first.cursor);
      const rest = await store.listReleases({ cluster }, { limit: 5, cursor: first.cursor });
      assert.deepEqual(
        rest.items.map((r) => r.name),
        ["b", "c"],
      );
      const foreign: [Parameters<ReleaseStore["listReleases"]>[0], string][] = [
        [{ cluster: `${cluster}x` }, first.cursor],
        [{ cluster, namespace: "other" }, first.cursor],
        [{ cluster }, Buffer.from(JSON.stringify({ k: "list", p: { after: "zz#default#a" } })).toString("base64url")],
      ];
      for (const [filter, cursor] of foreign) {
        await assert.rejects(
          store.listReleases(filter, { cursor }),
          { name: "InvalidCursorError" },
          JSON.stringify(filter),
        );
      }
      // The unfiltered listing spans every cluster, so the cursor still continues it.
      const all = await store.listReleases({}, { limit: 1000, cursor: first.cursor });
      assert.ok(all.items.some((r) => r.cluster === `${cluster}x`));
    });

    test("a re-put with Helm's in-place changes (status, description) moves listings", async () => {
      const store = await makeStore();
      const cluster = uniqueName("cl");
      const name = uniqueName();
      await store.putRevision(cluster, makeRelease({ name, version: 1 }));
      assert.equal((await store.listDeployed()).items.filter((s) => s.cluster === cluster).length, 1);
      const superseded = makeRelease({ name, version: 1, status: "superseded", description: "Superseded by CI" });
      assert.equal(await store.putRevision(cluster, superseded), "updated");
      const read = await store.getRevision(key(name, "default", cluster), 1);
      assert.equal(read.info?.status, "superseded");
      assert.equal(read.info?.description, "Superseded by CI");
      const [summary] = (await store.listReleases({ cluster })).items;
      assert.equal(summary.status, "superseded");
      assert.equal((await store.listDeployed()).items.filter((s) => s.cluster === cluster).length, 0);
      assert.equal(await store.putRevision(cluster, makeRelease({ name, version: 1 })), "updated");
      assert.equal((await store.listDeployed()).items.filter((s) => s.cluster === cluster).length, 1);
    });

    test("listReleases: latest of each release, filtered by cluster, namespace and status, paginated", async () => {
      const store = await makeStore();
      const cluster = uniqueName("cl");
      const other = uniqueName("cl");
      await store.putRevision(
        cluster,
        makeRelease({ name: "web", namespace: "prod", version: 1, status: "superseded" }),
      );
      await store.putRevision(cluster, makeRelease({ name: "web", namespace: "prod", version: 2, status: "deployed" }));
      await store.putRevision(cluster, makeRelease({ name: "api", namespace: "prod", version: 1, status: "failed" }));
      await store.putRevision(cluster, makeRelease({ name: "db", namespace: "data", version: 4, status: "deployed" }));
      await store.putRevision(
        cluster,
        makeRelease({ name: "cache", namespace: "prod", version: 1, status: "deployed" }),
      );
      await store.putRevision(other, makeRelease({ name: "web", namespace: "prod", version: 7 }));

      const all = await store.listReleases({ cluster });
      assert.deepEqual(
        all.items.map((s) => `${s.namespace}/${s.name}@${s.revision}:${s.status}`),
        ["data/db@4:deployed", "prod/api@1:failed", "prod/cache@1:deployed", "prod/web@2:deployed"],
      );
      assert.equal(all.cursor, undefined);
      const web = all.items[3];
      assert.equal(web.cluster, cluster);
      assert.equal(web.chart?.name, "demo");
      assert.equal(web.updated, makeRelease({ version: 2 }).info?.last_deployed);
      assert.equal(web.description, "Upgrade complete");

      const prod = await store.listReleases({ cluster, namespace: "prod" });
      assert.deepEqual(
        prod.items.map((s) => s.name),
        ["api", "cache", "web"],
      );
      const deployed = await store.listReleases({ cluster, status: "deployed" });
      assert.deepEqual(
        deployed.items.map((s) => s.name),
        ["db", "cache", "web"],
      );
      const failed = await store.listReleases({ cluster, status: "failed" });
      assert.deepEqual(
        failed.items.map((s) => s.name),
        ["api"],
      );
      const prodDeployed = await store.listReleases({ cluster, namespace: "prod", status: "deployed" });
      assert.deepEqual(
        prodDeployed.items.map((s) => s.name),
        ["cache", "web"],
      );
      assert.deepEqual((await store.listReleases({ cluster, namespace: "nothing" })).items, []);

      const pages: string[][] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 5; i++) {
        const page = await store.listReleases({ cluster }, { limit: 3, cursor });
        pages.push(page.items.map((s) => s.name));
        cursor = page.cursor;
        if (!cursor) break;
      }
      assert.deepEqual(pages, [["db", "api", "cache"], ["web"]]);

      const everywhere = await store.listReleases({ namespace: "prod" });
      const ours = everywhere.items.filter((s) => s.cluster === cluster || s.cluster === other);
      assert.equal(ours.length, 4);
      await assert.rejects(store.listReleases({ cluster: "bad#cluster" }), { kind: "validation" });
      await assert.rejects(store.listReleases({ namespace: "Bad_NS" }), { kind: "validation" });
    });

    test("latestSummaries answers each release's latest summary, as listReleases gives it", async () => {
      const store = await makeStore();
      const cluster = uniqueName("cl");
      await store.putRevision(cluster, makeRelease({ name: "web", namespace: "prod", version: 1 }));
      await store.putRevision(cluster, makeRelease({ name: "web", namespace: "prod", version: 2, status: "failed" }));
      await store.putRevision(cluster, makeRelease({ name: "api", namespace: "prod", version: 1 }));
      await store.putRevision(cluster, makeRelease({ name: "db", namespace: "data", version: 3 }));
      await store.putRevision(uniqueName("cl"), makeRelease({ name: "web", namespace: "prod", version: 1 }));
      const listed = await store.listReleases({ cluster });
      const summaries = await store.latestSummaries([
        key("web", "prod", cluster),
        key("gone", "prod", cluster),
        key("db", "data", cluster),
      ]);
      const byName = new Map(listed.items.map((s) => [s.name, s]));
      assert.deepEqual(summaries, [byName.get("web"), undefined, byName.get("db")], "as the listing gives them");
      assert.equal(summaries[0]?.revision, 2);
      assert.deepEqual(await store.latestSummaries([]), []);
      await assert.rejects(store.latestSummaries([key("bad#name", "prod", cluster)]), { kind: "validation" });
    });

    test("listReleases with a set of statuses (helm list --deployed --failed ...), also with status", async () => {
      const store = await makeStore();
      const cluster = uniqueName("cl");
      await store.putRevision(cluster, makeRelease({ name: "a", version: 1, status: "superseded" }));
      await store.putRevision(cluster, makeRelease({ name: "a", version: 2, status: "deployed" }));
      await store.putRevision(cluster, makeRelease({ name: "b", version: 1, status: "failed" }));
      await store.putRevision(cluster, makeRelease({ name: "c", version: 3, status: "uninstalled" }));
      await store.putRevision(cluster, makeRelease({ name: "d", version: 1, status: "pending-install" }));
      const names = async (filter: Parameters<ReleaseStore["listReleases"]>[0]) =>
        (await store.listReleases({ cluster, ...filter })).items.map((s) => `${s.name}:${s.status}`);
      assert.deepEqual(await names({ statuses: ["deployed", "failed"] }), ["a:deployed", "b:failed"]);
      assert.deepEqual(await names({ statuses: ["deployed"] }), ["a:deployed"]);
      assert.deepEqual(await names({ statuses: ["uninstalled", "pending-install"] }), [
        "c:uninstalled",
        "d:pending-install",
      ]);
      // The latest revision only: a's superseded revision 1 is not a listing entry.
      assert.deepEqual(await names({ statuses: ["superseded"] }), []);
      assert.deepEqual(await names({ statuses: [] }), []);
      assert.deepEqual(await names({ statuses: ["deployed", "failed"], status: "failed" }), ["b:failed"]);
      await assert.rejects(store.listReleases({ cluster, statuses: ["bogus" as "failed"] }), { kind: "validation" });
    });

    test("listRevisions: every revision with a wanted status, oldest first, paged at release boundaries", async () => {
      const store = await makeStore();
      const cluster = uniqueName("cl");
      for (const version of [1, 2, 3]) {
        const status = version === 3 ? "deployed" : "superseded";
        await store.putRevision(cluster, makeRelease({ name: "web", namespace: "prod", version, status }));
      }
      await store.putRevision(
        cluster,
        makeRelease({ name: "api", namespace: "prod", version: 1, status: "superseded" }),
      );
      await store.putRevision(cluster, makeRelease({ name: "api", namespace: "prod", version: 2, status: "failed" }));
      await store.putRevision(
        cluster,
        makeRelease({ name: "db", namespace: "data", version: 5, status: "superseded" }),
      );
      await store.putRevision(cluster, makeRelease({ name: "db", namespace: "data", version: 6, status: "deployed" }));
      await store.putRevision(uniqueName("cl"), makeRelease({ name: "web", namespace: "prod", status: "superseded" }));
      const shown = (page: { items: { namespace: string; name: string; revision: number; status: string }[] }) =>
        page.items.map((s) => `${s.namespace}/${s.name}@${s.revision}:${s.status}`);

      const superseded = await store.listRevisions({ cluster, statuses: ["superseded"] });
      assert.deepEqual(shown(superseded), [
        "data/db@5:superseded",
        "prod/api@1:superseded",
        "prod/web@1:superseded",
        "prod/web@2:superseded",
      ]);
      assert.equal(superseded.cursor, undefined);
      const first = superseded.items[0];
      assert.equal(first.cluster, cluster);
      assert.equal(first.chart?.name, "demo");
      assert.equal(first.updated, makeRelease({ version: 5 }).info?.last_deployed);
      assert.deepEqual(
        shown(await store.listRevisions({ cluster, namespace: "prod", statuses: ["superseded", "failed"] })),
        ["prod/api@1:superseded", "prod/api@2:failed", "prod/web@1:superseded", "prod/web@2:superseded"],
      );
      assert.deepEqual((await store.listRevisions({ cluster, statuses: [] })).items, []);

      const pages: string[][] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 6; i++) {
        const page = await store.listRevisions({ cluster, statuses: ["superseded"] }, { limit: 1, cursor });
        pages.push(shown(page));
        cursor = page.cursor;
        if (!cursor) break;
      }
      assert.deepEqual(pages.flat(), shown(superseded));
      assert.ok(pages.length >= 3, "one page per release at limit 1");
      const other = await store.listRevisions({ cluster, namespace: "data", statuses: ["superseded"] }, { limit: 1 });
      assert.equal(other.cursor, undefined);
      await assert.rejects(store.listRevisions({ cluster: "bad#c", statuses: ["superseded"] }), { kind: "validation" });
      const listCursor = (await store.listReleases({ cluster }, { limit: 1 })).cursor!;
      await assert.rejects(store.listRevisions({ cluster, statuses: ["superseded"] }, { cursor: listCursor }), {
        name: "InvalidCursorError",
      });
    });

    test("listDeployed: every release whose latest revision is deployed, across clusters", async () => {
      const store = await makeStore();
      const a = uniqueName("cl");
      const b = uniqueName("cl");
      await store.putRevision(a, makeRelease({ name: "one", version: 1, status: "deployed" }));
      await store.putRevision(a, makeRelease({ name: "two", version: 1, status: "deployed" }));
      await store.putRevision(a, makeRelease({ name: "two", version: 2, status: "failed" }));
      await store.putRevision(b, makeRelease({ name: "three", version: 5, status: "deployed" }));
      const ours: string[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 50; i++) {
        const page = await store.listDeployed({ limit: 1, cursor });
        ours.push(
          ...page.items.filter((s) => s.cluster === a || s.cluster === b).map((s) => `${s.name}@${s.revision}`),
        );
        cursor = page.cursor;
        if (!cursor) break;
      }
      assert.deepEqual(ours.sort(), ["one@1", "three@5"]);
    });

    test("oversized metadata (huge values) is ReleaseTooLargeError; nothing is half-written", async () => {
      const store = await makeStore();
      const name = uniqueName();
      const huge = makeRelease({ name });
      huge.config = { blob: "v".repeat(400 * 1024) };
      await assert.rejects(store.putRevision("local", huge), {
        name: "ReleaseTooLargeError",
        kind: "too-large",
        message: /values, notes, hooks, description\) of default\/.* revision 1 is \d+ bytes/,
      });
      await assert.rejects(store.getLatest(key(name)), { name: "ReleaseNotFoundError" });
      await store.putRevision("local", makeRelease({ name }));
    });

    test("bad identities and releases are validation errors that name the problem", async () => {
      const store = await makeStore();
      await assert.rejects(store.getLatest(key("Bad_Name")), {
        name: "InvalidReleaseNameError",
        message: "release name is invalid: Bad_Name",
      });
      await assert.rejects(store.getLatest(key("")), { message: "no name provided" });
      await assert.rejects(store.getLatest(key("ok", "UPPER")), { name: "InvalidNamespaceError" });
      await assert.rejects(store.getLatest(key("ok", "default", "a#b")), { name: "InvalidClusterNameError" });
      await assert.rejects(store.getRevision(key("ok"), 0), { name: "InvalidRevisionError" });
      await assert.rejects(store.getRevision(key("ok"), 2 ** 31), { name: "InvalidRevisionError" });
      await assert.rejects(store.putRevision("", makeRelease()), { kind: "validation" });
      await assert.rejects(store.putRevision("local", makeRelease({ name: "x".repeat(54) })), { kind: "validation" });
      await assert.rejects(store.putRevision("local", makeRelease({ version: -1 })), { kind: "validation" });
      const noStatus = makeRelease();
      noStatus.info!.status = "DEPLOYED" as never;
      await assert.rejects(store.putRevision("local", noStatus), { kind: "validation" });
    });
  });
}
