/** Lambda entry point of POST /chatops/slack/{commands,interactions} (serverless.yml: chatopsSlack). */
import { slackIngressDepsFromEnv } from "./deps.ts";
import { createSlackIngress } from "./slack.ts";

export const handler = createSlackIngress(slackIngressDepsFromEnv(process.env));
