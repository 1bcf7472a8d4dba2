/**
 * What both chat webhooks do before reading a request: its exact bytes, bounded, the platform's secret, and
 * `admit`: the signature, the replay check, the log line and the refusal, in one place for Slack and Teams.
 */
import type { ChatPlatformRecord } from "../../shared/chatops/platforms.ts";
import type { ReplayLedger } from "../../shared/chatops/replay-ledger.ts";
import type { Logger } from "../../shared/ports.ts";
import { rawBody } from "../_shared/http/body.ts";
import { SecretUnavailableError, UnauthorizedError } from "../_shared/http/errors.ts";
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
  logger: Pick<Logger, "error">,
  what: string,
): Promise<string> {
  try {
    return await read();
  } catch (error) {
    logger.error(`${what} unavailable`, { error: (error as Error).message });
    throw new SecretUnavailableError(`the ${what} could not be read; try again shortly`);
  }
}

export interface Admission<T> {
  platform: ChatPlatformRecord;
  /** The secret's reader and what to call it in a log line. */
  secret: { read: () => Promise<string>; what: string };
  replays: ReplayLedger;
  logger: Logger;
  /** Epoch ms, by the handler's clock. */
  now: number;
  /** The signed body as the platform means it (a form, an activity); a malformed one throws its own 4xx. */
  read(body: Buffer): T;
  /** The request's replay key (the platform's name first); undefined: not fresh, refused like a replay. */
  replayKey(request: T): string | undefined;
}

/**
 * A signed request, read, or a 401 without detail: the platform's signature over the raw bytes, then the replay
 * check (a key seen in the last minutes is refused, across instances with the releases table's ledger), each
 * refusal logged with the platform, the path and why.
 */
export async function admit<T>(event: HttpEvent, admission: Admission<T>): Promise<T> {
  const { platform, logger, now } = admission;
  const refuse = (outcome: "unauthorized" | "replay") => {
    logger.warn("chat request refused", { platform: platform.name, path: event.rawPath, outcome });
    return new UnauthorizedError();
  };
  const body = webhookBody(event);
  const secret = await webhookSecret(admission.secret.read, logger, admission.secret.what);
  if (!platform.verify({ headers: event.headers ?? {}, body, secret, now })) throw refuse("unauthorized");
  const request = admission.read(body);
  const key = admission.replayKey(request);
  if (key === undefined || !(await admission.replays.firstSeen(key, now))) throw refuse("replay");
  return request;
}
