import assert from "node:assert/strict";
import { after, before, describe, type TestContext, test } from "node:test";
import { SimIam } from "../../local/sim/aws/iam.ts";
import { mintEksToken, type SimCluster, type SimulatedEks, startSimulatedEks } from "../../local/sim/index.ts";
import { VerifiedTokenCache } from "../../local/sim/kube/token-cache.ts";
import { call } from "./helpers.ts";

const START = new Date("2026-03-01T12:00:00Z");
const MINUTE = 60_000;
// The auth clock: tokens, cached verifications and role sessions expire by it; each test sets it.
let clock = START;
let sim: SimulatedEks;

before(async () => {
  sim = await startSimulatedEks({ clusters: [{ name: "alpha" }, { name: "beta" }], authNow: () => clock });
});
after(async () => {
  await sim?.stop();
});

const at = (minutesAfterStart: number) => new Date(START.getTime() + minutesAfterStart * MINUTE);
const status = async (cluster: SimCluster, token: string) =>
  (await call(cluster, "/api/v1/namespaces", { token })).status;

/** Watches the server's cache lookups, so a test knows a request was answered from the cache. */
function watchCacheLookups(t: TestContext) {
  const get = t.mock.method(VerifiedTokenCache.prototype, "get");
  return { lastWasHit: () => get.mock.calls.at(-1)?.result !== undefined };
}

describe("the API server's verified-token cache", () => {
  test("a cached token is refused once its 15 minutes are over", async (t) => {
    const lookups = watchCacheLookups(t);
    clock = at(0);
    const alpha = sim.cluster("alpha");
    const token = mintEksToken(sim.credentials, "alpha", "us-east-1", clock);
    assert.equal(await status(alpha, token), 200);
    assert.equal(lookups.lastWasHit(), false, "first use: verified in full");
    clock = at(14);
    assert.equal(await status(alpha, token), 200);
    assert.equal(lookups.lastWasHit(), true, "second use: from the cache");
    clock = new Date(at(15).getTime() + 1000);
    assert.equal(await status(alpha, token), 401);
    assert.equal(lookups.lastWasHit(), false);
    clock = at(1);
    assert.equal(await status(alpha, token), 200, "a clock set back does not resurrect the entry: it re-verifies");
    assert.equal(lookups.lastWasHit(), false);
  });

  test("a cached token is refused once its access key is revoked", async (t) => {
    const lookups = watchCacheLookups(t);
    clock = at(0);
    const alpha = sim.cluster("alpha");
    const user = sim.iam.addUser("short-lived");
    const token = mintEksToken(user.credentials, "alpha", "us-east-1", clock);
    assert.equal(await status(alpha, token), 200);
    assert.equal(await status(alpha, token), 200);
    assert.equal(lookups.lastWasHit(), true);
    sim.iam.revokeKey(user.credentials.accessKeyId);
    assert.equal(await status(alpha, token), 401);
    assert.equal(lookups.lastWasHit(), false);
  });

  test("a cached token signed with role-session keys is refused once the session ends", async (t) => {
    const lookups = watchCacheLookups(t);
    clock = at(0);
    const alpha = sim.cluster("alpha");
    const role = sim.iam.addRole(`arn:aws:iam::${sim.iam.account}:role/cache-reader`);
    const session = sim.iam.issueSession(role, "cache-test", 15 * 60);
    // Signed 10 minutes in: the token itself would stay valid until minute 25, the session ends at 15.
    clock = at(10);
    const token = mintEksToken(session, "alpha", "us-east-1", clock);
    alpha.resetStats();
    assert.equal(await status(alpha, token), 200);
    assert.equal(alpha.stats().log[0].user, `arn:aws:sts::${sim.iam.account}:assumed-role/cache-reader/cache-test`);
    clock = at(14);
    assert.equal(await status(alpha, token), 200);
    assert.equal(lookups.lastWasHit(), true);
    clock = at(15);
    assert.equal(await status(alpha, token), 401);
    assert.equal(lookups.lastWasHit(), false);
  });

  test("a token cached by one cluster is never served to another", async (t) => {
    const lookups = watchCacheLookups(t);
    clock = at(0);
    const [alpha, beta] = [sim.cluster("alpha"), sim.cluster("beta")];
    const forBeta = beta.token();
    assert.equal(await status(beta, forBeta), 200);
    assert.equal(await status(beta, forBeta), 200);
    assert.equal(lookups.lastWasHit(), true, "cached by beta");
    for (let round = 0; round < 2; round++) {
      assert.equal(await status(alpha, forBeta), 401, `round ${round}`);
      assert.equal(lookups.lastWasHit(), false, `round ${round}`);
    }
    const forAlpha = alpha.token();
    assert.equal(await status(alpha, forAlpha), 200);
    assert.equal(await status(beta, forAlpha), 401);
    assert.equal(await status(beta, forBeta), 200, "beta still serves its own token");
  });

  test("cache hits for a good token do not change the outcome for bad ones, nor are refusals cached", async (t) => {
    const lookups = watchCacheLookups(t);
    clock = at(0);
    const alpha = sim.cluster("alpha");
    const good = alpha.token();
    const payload = good.slice("k8s-aws-v1.".length);
    const bad = [
      `${good}A`,
      `${good}AA`,
      `${good}=`,
      good.slice(0, -1),
      `k8s-aws-v1.${payload.slice(0, 30)}+${payload.slice(31)}`,
      mintEksToken({ ...sim.credentials, secretAccessKey: "not-the-secret" }, "alpha", "us-east-1", clock),
      mintEksToken(sim.credentials, "alpha", "us-east-1", at(-16)),
    ];
    for (let round = 0; round < 3; round++) {
      assert.equal(await status(alpha, good), 200);
      if (round > 0) assert.equal(lookups.lastWasHit(), true);
      for (const [index, token] of bad.entries()) {
        assert.equal(await status(alpha, token), 401, `round ${round}, bad token ${index}`);
        assert.equal(lookups.lastWasHit(), false, `round ${round}, bad token ${index}`);
      }
    }
  });
});

describe("VerifiedTokenCache on its own", () => {
  test("remembers by exact token until the signing time + 15 minutes or the key's end", () => {
    const iam = new SimIam({ now: () => START });
    const user = iam.addUser("unit");
    const cache = new VerifiedTokenCache<string>(iam);
    const token = mintEksToken(user.credentials, "c", "us-east-1", START);
    assert.equal(cache.get(token, START), undefined);
    cache.remember(token, user.credentials.accessKeyId, "caller");
    assert.equal(cache.get(token, at(15)), "caller");
    assert.equal(cache.get(`${token}A`, at(1)), undefined, "no near-miss lookups");
    assert.equal(cache.get(token, new Date(at(15).getTime() + 1)), undefined);
    assert.equal(cache.get(token, at(1)), undefined, "expired entries are dropped");
    cache.remember(token, user.credentials.accessKeyId, "caller");
    iam.revokeKey(user.credentials.accessKeyId);
    assert.equal(cache.get(token, at(1)), undefined);
  });

  test("a token without a readable signing time is not cached; a full cache starts over", () => {
    const iam = new SimIam({ now: () => START });
    const user = iam.addUser("unit");
    const cache = new VerifiedTokenCache<number>(iam);
    cache.remember("k8s-aws-v1.bm90LWEtdXJs", user.credentials.accessKeyId, 1);
    assert.equal(cache.get("k8s-aws-v1.bm90LWEtdXJs", START), undefined);
    const tokens = Array.from({ length: 1001 }, (_, i) =>
      mintEksToken(user.credentials, "c", "us-east-1", new Date(START.getTime() + i * 1000)),
    );
    for (const [index, token] of tokens.entries()) cache.remember(token, user.credentials.accessKeyId, index);
    assert.equal(cache.get(tokens[0], START), undefined, "cleared when the 1001st arrived");
    assert.equal(cache.get(tokens[1000], START), 1000);
  });
});
