/**
 * getLatestOfEach, held to the same contract on both stores (run from memory-store.test.ts and
 * dynamodb-store.test.ts): getLatest of each key, in the order asked, absent releases in place.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ReleaseKey } from "../../shared/release/model.ts";
import type { ReleaseStore } from "../../shared/store/release-store.ts";
import { highEntropyManifest, makeRelease, uniqueName } from "./fixtures.ts";

export function latestOfEachContract(label: string, makeStore: () => Promise<ReleaseStore>): void {
  describe(`${label}: getLatestOfEach`, () => {
    test("answers getLatest of every key in the order asked; an absent release is a ReleaseNotFoundError", async () => {
      const store = await makeStore();
      const [a, b, big] = [uniqueName("a"), uniqueName("b"), uniqueName("big")];
      await store.putRevision("eu", makeRelease({ name: a, namespace: "shop" }));
      await store.putRevision("eu", makeRelease({ name: b, version: 1 }));
      await store.putRevision("eu", makeRelease({ name: b, version: 2, status: "failed" }));
      // Several manifest chunks (over 350 KB after gzip).
      await store.putRevision("us", makeRelease({ name: big, manifest: highEntropyManifest(900_000) }));
      const keys: ReleaseKey[] = [
        { cluster: "eu", namespace: "default", name: b },
        { cluster: "eu", namespace: "default", name: a },
        { cluster: "eu", namespace: "shop", name: a },
        { cluster: "us", namespace: "default", name: big },
        { cluster: "eu", namespace: "default", name: b },
      ];
      const reads = await store.getLatestOfEach(keys);
      assert.equal(reads.length, keys.length);
      assert.ok("error" in reads[1] && reads[1].error.name === "ReleaseNotFoundError");
      for (const i of [0, 2, 3, 4]) {
        const read = reads[i];
        assert.ok("release" in read, `key ${i} was not read`);
        assert.deepEqual(read.release, await store.getLatest(keys[i]));
      }
      assert.equal((reads[0] as { release: { version: number } }).release.version, 2);
      assert.deepEqual(await store.getLatestOfEach([]), []);
    });
  });
}
