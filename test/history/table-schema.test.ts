/** infra/snapshots-table.yml and shared/snapshots/table-schema.ts must describe the same table. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parse } from "yaml";
import {
  createSnapshotsTableInput,
  DEFAULT_SNAPSHOTS_TABLE,
  SNAPSHOT_TTL_ATTRIBUTE,
} from "../../shared/snapshots/table-schema.ts";

const template = parse(readFileSync(new URL("../../infra/snapshots-table.yml", import.meta.url), "utf8"));
const table = template.Resources.SnapshotsTable;
const expected = createSnapshotsTableInput("x");
const byName = <T>(items: T[], key: (item: T) => string) => [...items].sort((a, b) => key(a).localeCompare(key(b)));

test("the CloudFormation snapshots table matches the schema init creates", () => {
  const props = table.Properties;
  assert.equal(table.Type, "AWS::DynamoDB::Table");
  assert.equal(props.BillingMode, expected.BillingMode);
  assert.deepEqual(props.KeySchema, expected.KeySchema);
  assert.deepEqual(
    byName(props.AttributeDefinitions, (a: { AttributeName: string }) => a.AttributeName),
    byName(expected.AttributeDefinitions!, (a) => a.AttributeName!),
  );
  assert.equal(props.GlobalSecondaryIndexes.length, expected.GlobalSecondaryIndexes!.length);
  props.GlobalSecondaryIndexes.forEach((index: Record<string, unknown>, i: number) => {
    const want = expected.GlobalSecondaryIndexes![i];
    assert.equal(index.IndexName, want.IndexName);
    assert.deepEqual(index.KeySchema, want.KeySchema);
    assert.deepEqual(index.Projection, want.Projection);
  });
});

test("the template enables TTL on expiresAt and PITR, and names the table by parameter", () => {
  const props = table.Properties;
  assert.deepEqual(props.TimeToLiveSpecification, { AttributeName: SNAPSHOT_TTL_ATTRIBUTE, Enabled: true });
  assert.equal(props.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled, true);
  assert.deepEqual(props.TableName, { Ref: "SnapshotsTableName" });
  assert.equal(template.Parameters.SnapshotsTableName.Default, DEFAULT_SNAPSHOTS_TABLE);
});
