/** Lambda entry point of POST /chatops/slack/{commands,interactions} (serverless.yml: chatopsSlack). */

import { createSlackIngress } from "./slack.ts";
import { slackIngressDepsFromEnv } from "./slack-deps.ts";

export const handler = createSlackIngress(slackIngressDepsFromEnv(process.env));
