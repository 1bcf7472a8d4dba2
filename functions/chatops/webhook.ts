/** What both chat webhooks do before reading a request: its exact bytes, bounded, and the platform's secret. */
import { rawBody } from "../_shared/http/body.ts";
import { SecretUnavailableError } from "../_shared/http/errors.ts";
import type { HttpEvent } from "../_shared/http/types.ts";

/** Chat platforms send small bodies; anything bigger is refused before any work. */
export const MAX_CHAT_BODY_BYTES = 64 * 1024;

/** The exact bytes the platform signed (API Gateway base64-encodes some bodies), at most MAX_CHAT_BODY_BYTES. */
export function webhookBody(event: HttpEvent): Buffer {
  return rawBody(event, MAX_CHAT_BODY_BYTES, "chat platforms send small bodies");
}

/**
 * The webhook's secret (Slack signing secret, Teams security token); a 503 when it cannot be read (SSM
 * unreachable, parameter missing), logged with the reason, never with a value.
 */
export async function webhookSecret(
  read: () => Promise<string>,
  logger: { error(message: string, attributes?: Record<string, unknown>): void },
  what: string,
): Promise<string> {
  try {
    return await read();
  } catch (error) {
    logger.error(`${what} unavailable`, { error: (error as Error).message });
    throw new SecretUnavailableError(`the ${what} could not be read; try again shortly`);
  }
}
