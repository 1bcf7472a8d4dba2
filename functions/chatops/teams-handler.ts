/** Lambda entry point of POST /chatops/teams (serverless.yml: chatopsTeams). */
import { teamsDepsFromEnv } from "./deps.ts";
import { createTeamsHandler } from "./teams.ts";

export const handler = createTeamsHandler(teamsDepsFromEnv(process.env));
