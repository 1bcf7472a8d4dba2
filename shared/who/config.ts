/** The one place that picks the AttributionStore for a store configuration (the one STORE_DRIVER: releases table or memory). */
import { createDocumentClient, type StoreConfig } from "../store/config.ts";
import type { AttributionStore } from "./attribution.ts";
import { DynamoDbAttributionStore } from "./dynamodb-attribution-store.ts";
import { MemoryAttributionStore } from "./memory-attribution-store.ts";

export function openAttributionStore(config: StoreConfig): AttributionStore {
  if ((config.driver ?? "dynamodb") === "memory") return new MemoryAttributionStore();
  return new DynamoDbAttributionStore({
    client: createDocumentClient(config),
    tableName: config.tableName,
    region: config.region,
    endpoint: config.endpoint,
  });
}
