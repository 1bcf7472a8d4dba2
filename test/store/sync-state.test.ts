import { createDocumentClient } from "../../shared/store/config.ts";
import { Table } from "../../shared/store/dynamodb-table.ts";
import { DynamoDbSyncStateStore } from "../../shared/store/sync-state-dynamodb.ts";
import { MemorySyncStateStore } from "../../shared/store/sync-state-memory.ts";
import { releasesTableForFile } from "../support/dynamo-table.ts";
import { syncStateContract } from "./sync-state-contract.ts";

const config = releasesTableForFile("sync-state");

syncStateContract("memory", async () => new MemorySyncStateStore());
syncStateContract(
  "dynamodb-local",
  async () => new DynamoDbSyncStateStore(new Table(createDocumentClient(config()), config())),
);
