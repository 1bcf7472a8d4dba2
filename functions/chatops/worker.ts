/**
 * The chatops worker (SQS): for each ChatJob, re-parse the command and re-check
 * access and the response_url (the queue is not trusted to widen either), run
 * the same use cases as the API, render Block Kit and POST it to the
 * response_url. Powertools batch processing reports failed records only; a
 * record fails only on a bug, because every expected outcome (denied, not
 * found, cluster down, Slack refusing the post) is an answer or a log line:
 * retrying a delivered or expired answer would spend Slack's 5-post budget.
 */
import { BatchProcessor, EventType, processPartialResponse } from "@aws-lambda-powertools/batch";
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { resolveAccess } from "../../shared/chatops/access.ts";
import { acknowledge } from "../../shared/chatops/acknowledge.ts";
import { answerJob } from "../../shared/chatops/answer.ts";
import { type ChatJob, jobAgeProblem, parseChatJob } from "../../shared/chatops/job.ts";
import { chatPlatform } from "../../shared/chatops/platforms.ts";
import { isDomainError } from "../../shared/errors.ts";
import { ChatDeliveryError, ResponseUrlRefusedError } from "../../shared/notify/errors.ts";
import { checkResponseUrl, postToResponseUrl } from "../../shared/notify/response-url.ts";
import { deadlineFrom } from "../_shared/runtime.ts";
import { lambdaEntry, type ShellHandler, withTelemetry } from "../_shared/shell.ts";
import { chatWorkerDepsFromEnv } from "./deps.ts";
import type { ChatWorkerDeps } from "./types.ts";

export type SqsHandler = ShellHandler<SQSEvent, SQSBatchResponse>;

/** Time kept for rendering Block Kit and posting it, up to three tries, to the response_url. */
export const CHAT_POST_MARGIN_MS = 5_000;

export function createChatWorker(deps: ChatWorkerDeps): SqsHandler {
  // The one clock (the use cases' too): job ages, durations and the deadline are read on it.
  const now = () => deps.clock.now().getTime();
  return withTelemetry(deps.telemetry, async (event: SQSEvent, context: Context) => {
    const processor = new BatchProcessor(EventType.SQS);
    return processPartialResponse(event, (record: SQSRecord) => answerRecord(record, context), processor, {
      context,
      throwOnFullBatchFailure: false,
    });
  });

  async function answerRecord(record: SQSRecord, context: Context): Promise<void> {
    const started = now();
    let job: ChatJob;
    try {
      job = parseChatJob(record.body);
    } catch (error) {
      // Not ours or damaged: retrying cannot fix it; the log says which message.
      deps.logger.error("chat job dropped", { messageId: record.messageId, error: (error as Error).message });
      return;
    }
    const { caller } = job;
    const log = (outcome: string, fields: Record<string, unknown> = {}) =>
      deps.logger.info("chat command answered", {
        platform: caller.platform,
        team: caller.team,
        channel: caller.channel,
        user: caller.user,
        command: job.command,
        outcome,
        requestId: job.requestId,
        durationMs: now() - started,
        sinceRequestMs: now() - job.receivedAt,
        ...fields,
      });
    // Both ways (#25): a job "received" in the future is forged, and would otherwise never expire.
    const tooOld = jobAgeProblem(job, now());
    if (tooOld) return log(tooOld);
    let url: URL;
    try {
      url = checkResponseUrl(job.responseUrl, deps.allowHosts);
    } catch (error) {
      if (error instanceof ResponseUrlRefusedError) return log("refused", { reason: error.message });
      throw error;
    }
    // The same use case as the webhook's acknowledgement, again: the queue is not trusted to widen what is read.
    const platform = chatPlatform(caller.platform)!;
    const access = resolveAccess(deps.access, caller);
    const options = { prefix: deps.prefix, snapshots: Boolean(deps.historyStores) };
    const acknowledged = acknowledge(job.command, access, {
      ...options,
      knownClusters: deps.clusters.list().map((c) => c.name),
    });
    const answer =
      "answer" in acknowledged
        ? acknowledged.answer
        : await answerJob(deps, acknowledged.job, access, {
            ...options,
            deadline: deadlineFrom(context, deps.deadlineMarginMs ?? CHAT_POST_MARGIN_MS, {
              now: now(),
              floorMs: 1000,
            }),
          });
    const placement = { public: job.public, ...(job.replaceOriginal ? { replaceOriginal: true } : {}) };
    const message = platform.render(answer, { prefix: deps.prefix, apiBaseUrl: deps.apiBaseUrl }, placement);
    try {
      const posted = await postToResponseUrl(url, message, {
        fetch: deps.fetch,
        sleep: deps.sleep,
        logger: deps.logger,
      });
      log(answer.kind === "error" ? `error:${answer.code}` : answer.kind, {
        posts: posted.attempts,
        blocks: (message as { blocks?: unknown[] }).blocks?.length,
      });
    } catch (error) {
      if (error instanceof ChatDeliveryError || (isDomainError(error) && error.kind !== "internal")) {
        return log("undelivered", { error: (error as Error).message });
      }
      throw error;
    }
  }
}

/** The Lambda entry point (serverless.yml: chatopsWorker). */
export const handler = lambdaEntry(() => createChatWorker(chatWorkerDepsFromEnv(process.env)));
