/**
 * The hand-off from the Slack ingress to the chatops worker (one SQS message
 * per command or button click). It carries what the worker needs to answer and
 * nothing secret: no token, no signing material. The worker re-parses the
 * command and re-checks access and the response_url, so a message put on the
 * queue by anything else cannot widen what is read or where it is sent.
 */
import { ValidationError } from "../errors.ts";
import { messageJson } from "../queue/message-body.ts";
import { type ChatCaller, platformIdentity } from "./platform-identity.ts";

export interface ChatJob {
  version: 1;
  caller: ChatCaller;
  /** The canonical command line (shared/chatops/command.ts commandLine). */
  command: string;
  responseUrl: string;
  /** in_channel instead of ephemeral. */
  public: boolean;
  /** A button click: the answer replaces the message that holds the button. */
  replaceOriginal: boolean;
  /** When the request arrived (epoch ms): response_urls expire after 30 minutes. */
  receivedAt: number;
  /** The ingress's request id, to follow one command through both functions' logs. */
  requestId: string;
}

/** Slack accepts response_url posts for 30 minutes. */
export const RESPONSE_URL_LIFETIME_MS = 30 * 60_000;
/** How far ahead of the worker's clock a job's receivedAt may be (clocks of two Lambdas, not a forged job's). */
export const JOB_CLOCK_SKEW_MS = 60_000;

/**
 * Why a job is not answered by its age, looking both ways (#25 item 3): older than a response_url lives, or
 * received in the future (a forged job would otherwise never expire).
 */
export function jobAgeProblem(
  job: Pick<ChatJob, "receivedAt">,
  now: number,
): "expired" | "from-the-future" | undefined {
  if (now - job.receivedAt > RESPONSE_URL_LIFETIME_MS) return "expired";
  if (job.receivedAt - now > JOB_CLOCK_SKEW_MS) return "from-the-future";
  return undefined;
}

export function parseChatJob(body: string): ChatJob {
  const value = messageJson(body, () => new ValidationError("the chat job is not JSON", "InvalidChatJob"));
  const job = value as Partial<ChatJob>;
  const caller = job?.caller as Partial<ChatCaller> | undefined;
  const ok =
    job?.version === 1 &&
    typeof job.command === "string" &&
    job.command.length <= 2000 &&
    typeof job.responseUrl === "string" &&
    typeof job.public === "boolean" &&
    typeof job.replaceOriginal === "boolean" &&
    typeof job.receivedAt === "number" &&
    typeof job.requestId === "string" &&
    typeof caller?.platform === "string" &&
    platformIdentity(caller.platform) !== undefined &&
    typeof caller.team === "string" &&
    typeof caller.channel === "string" &&
    typeof caller.user === "string";
  if (!ok) throw new ValidationError("the chat job is not a version 1 ChatJob", "InvalidChatJob");
  return job as ChatJob;
}
