/** infra/releases-table.yml and shared/store/table-schema.ts must describe the same table. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parse } from "yaml";
import { createTableInput, DEFAULT_TABLE_NAME, TTL_ATTRIBUTE } from "../../shared/store/table-schema.ts";

const template = parse(readFileSync(new URL("../../infra/releases-table.yml", import.meta.url), "utf8"));
const table = template.Resources.ReleasesTable;
const expected = createTableInput("x");

const sortBy = <T>(items: T[], key: (item: T) => string) => [...items].sort((a, b) => key(a).localeCompare(key(b)));

test("the CloudFormation table matches the schema init creates", () => {
  const props = table.Properties;
  assert.equal(table.Type, "AWS::DynamoDB::Table");
  assert.equal(props.BillingMode, expected.BillingMode);
  assert.deepEqual(props.KeySchema, expected.KeySchema);
  assert.deepEqual(
    sortBy(props.AttributeDefinitions, (a: { AttributeName: string }) => a.AttributeName),
    sortBy(expected.AttributeDefinitions!, (a) => a.AttributeName!),
  );
  const indexes = sortBy(props.GlobalSecondaryIndexes, (i: { IndexName: string }) => i.IndexName);
  const expectedIndexes = sortBy(expected.GlobalSecondaryIndexes!, (i) => i.IndexName!);
  assert.equal(indexes.length, expectedIndexes.length);
  indexes.forEach((index: Record<string, unknown>, i: number) => {
    assert.equal(index.IndexName, expectedIndexes[i].IndexName);
    assert.deepEqual(index.KeySchema, expectedIndexes[i].KeySchema);
    assert.deepEqual(index.Projection, expectedIndexes[i].Projection);
  });
});

test("the template enables TTL on expiresAt and point-in-time recovery, and names the table by parameter", () => {
  const props = table.Properties;
  assert.deepEqual(props.TimeToLiveSpecification, { AttributeName: TTL_ATTRIBUTE, Enabled: true });
  assert.equal(props.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled, true);
  assert.deepEqual(props.TableName, { Ref: "ReleasesTableName" });
  assert.equal(template.Parameters.ReleasesTableName.Default, DEFAULT_TABLE_NAME);
});
