/**
 * DescribeCluster's answers kept in the releases table (DynamoDB Local, started once for this file): what one
 * cold start fetched, the next one reads; the item carries no ARN and no listing of releases sees it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { openClusterFactsStore } from "../../shared/eks/facts-store.ts";
import { openReleaseStore } from "../../shared/store/config.ts";
import { releasesTableForFile } from "../support/dynamo-table.ts";

const table = releasesTableForFile("facts");

test("facts written by one process are read by the next; releases listings do not see them", async () => {
  const config = table();
  const facts = { endpoint: "https://abc.gr7.us-east-1.eks.amazonaws.com", caData: "LS0tLS1CRUdJTg==", fetchedAt: 1 };
  await openClusterFactsStore(config).write("prod-1", { ...facts, version: "1.31" });
  assert.deepEqual(await openClusterFactsStore(config).read("prod-1"), { ...facts, version: "1.31" });
  assert.equal(await openClusterFactsStore(config).read("prod-2"), undefined);
  const store = openReleaseStore(config);
  assert.deepEqual((await store.listReleases({})).items, []);
  assert.deepEqual((await store.listDeployed()).items, []);
});

test("a stored endpoint that is not https is not trusted", async () => {
  const facts = openClusterFactsStore(table());
  await facts.write("odd", { endpoint: "http://10.0.0.1", caData: "eA==", fetchedAt: 1 });
  assert.equal(await facts.read("odd"), undefined);
});

test("the account and region the facts were described in are kept with them", async () => {
  const config = table();
  const facts = { endpoint: "https://def.gr7.eu-west-1.eks.amazonaws.com", caData: "eA==", fetchedAt: 2 };
  await openClusterFactsStore(config).write("prod-3", { ...facts, describedIn: "123456789012/eu-west-1" });
  assert.deepEqual(await openClusterFactsStore(config).read("prod-3"), {
    ...facts,
    describedIn: "123456789012/eu-west-1",
  });
});
