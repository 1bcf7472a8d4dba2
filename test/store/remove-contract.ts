/**
 * removeRevision, held to one contract on both stores (run from memory-store.test.ts and
 * dynamodb-store.test.ts): what the release sync relies on when Helm's storage drops a revision.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import { highEntropyManifest, makeRelease, uniqueName } from "./fixtures.ts";

export function removeRevisionContract(label: string, makeStore: () => Promise<ReleaseStore>): void {
  describe(`${label}: removeRevision`, () => {
    test("removing the latest revision makes the highest remaining one the latest, with its manifest", async () => {
      const store = await makeStore();
      const name = uniqueName("rm");
      const key = { cluster: "eu", namespace: "shop", name };
      await store.putRevision("eu", makeRelease({ name, namespace: "shop", version: 1, status: "superseded" }));
      // A body over one chunk (no inline copy on LATEST), then a small one.
      const big = highEntropyManifest(500_000);
      await store.putRevision(
        "eu",
        makeRelease({ name, namespace: "shop", version: 2, status: "superseded", manifest: big }),
      );
      await store.putRevision("eu", makeRelease({ name, namespace: "shop", version: 3 }));
      assert.equal(await store.removeRevision(key, 3), "removed");
      const latest = await store.getLatest(key);
      assert.equal(latest.version, 2);
      assert.equal(latest.manifest, big);
      assert.deepEqual(
        (await store.history(key)).items.map((r) => r.version),
        [2, 1],
      );
      const listed = (await store.listReleases({ cluster: "eu", namespace: "shop" })).items.find(
        (r) => r.name === name,
      );
      assert.equal(listed?.revision, 2);
      assert.equal(listed?.status, "superseded");
      assert.ok(!(await store.listDeployed()).items.some((r) => r.name === name), "no longer deployed");
      await assert.rejects(store.getRevision(key, 3), { name: "ReleaseNotFoundError" });
      assert.equal(await store.removeRevision(key, 3), "absent");
    });

    test("removing an older revision leaves the latest alone; removing every revision makes the release not found", async () => {
      const store = await makeStore();
      const name = uniqueName("gone");
      const key = { cluster: "eu", namespace: "default", name };
      await store.putRevision("eu", makeRelease({ name, version: 1, status: "superseded" }));
      await store.putRevision("eu", makeRelease({ name, version: 2 }));
      assert.equal(await store.removeRevision(key, 1), "removed");
      assert.equal((await store.getLatest(key)).version, 2);
      assert.ok((await store.listDeployed()).items.some((r) => r.name === name));
      assert.equal(await store.removeRevision(key, 2), "removed");
      await assert.rejects(store.getLatest(key), { name: "ReleaseNotFoundError" });
      await assert.rejects(store.history(key), { name: "ReleaseNotFoundError" });
      assert.ok(!(await store.listReleases({ cluster: "eu" })).items.some((r) => r.name === name));
      assert.ok(!(await store.listDeployed()).items.some((r) => r.name === name));
      // The revision number can be written again (helm install after an uninstall starts at 1).
      assert.equal(await store.putRevision("eu", makeRelease({ name, version: 1, description: "again" })), "created");
      assert.equal((await store.getLatest(key)).info?.description, "again");
    });

    test("a removal racing a newer put never loses the newer revision", async () => {
      const store = await makeStore();
      const name = uniqueName("race");
      const key = { cluster: "eu", namespace: "default", name };
      await store.putRevision("eu", makeRelease({ name, version: 1 }));
      await Promise.all([store.removeRevision(key, 1), store.putRevision("eu", makeRelease({ name, version: 2 }))]);
      assert.equal((await store.getLatest(key)).version, 2);
      assert.deepEqual(
        (await store.history(key)).items.map((r) => r.version),
        [2],
      );
    });
  });
}
