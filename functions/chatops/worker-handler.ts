/** Lambda entry point of the chatops worker on its SQS queue (serverless.yml: chatopsWorker). */
import { chatWorkerDepsFromEnv } from "./deps.ts";
import { createChatWorker } from "./worker.ts";

export const handler = createChatWorker(chatWorkerDepsFromEnv(process.env));
