/**
 * The chat platforms' shared secrets: from the environment locally
 * (SLACK_SIGNING_SECRET, TEAMS_WEBHOOK_SECRET), in AWS from SSM SecureString
 * parameters (SLACK_SIGNING_SECRET_PARAMETER, TEAMS_WEBHOOK_SECRET_PARAMETER)
 * read on first use and cached by Powertools Parameters for the life of the
 * instance (maxAge 15 min, so a rotated secret is picked up without a deploy).
 * A secret is never logged and never part of an error message.
 */
import { getParameter } from "@aws-lambda-powertools/parameters/ssm";
import { ChatopsConfigError } from "../../shared/chatops/errors.ts";

export type SecretSource = { kind: "value"; value: string } | { kind: "ssm"; name: string } | { kind: "none" };

export const SECRET_CACHE_SECONDS = 15 * 60;

export function secretSourceFromEnv(
  env: Record<string, string | undefined>,
  valueVar: string,
  parameterVar: string,
): SecretSource {
  const value = env[valueVar]?.trim();
  const name = env[parameterVar]?.trim();
  if (value && name) throw new ChatopsConfigError(`both ${valueVar} and ${parameterVar} are set: set only one of them`);
  if (value) return { kind: "value", value };
  if (name) {
    if (!/^(\/?[\w.-]+)+$/.test(name) || name.length > 2048) {
      throw new ChatopsConfigError(
        `${parameterVar} is not an SSM parameter name (e.g. /helm-status/slack-signing-secret)`,
      );
    }
    return { kind: "ssm", name };
  }
  return { kind: "none" };
}

/** A function that returns the secret, reading SSM at most once per cache period; "" when none is configured. */
export function secretReader(source: SecretSource): () => Promise<string> {
  if (source.kind === "value") return async () => source.value;
  if (source.kind === "none") return async () => "";
  return async () => {
    const value = await getParameter(source.name, { decrypt: true, maxAge: SECRET_CACHE_SECONDS });
    if (typeof value !== "string" || value === "") {
      throw new ChatopsConfigError(`SSM parameter ${source.name} is empty or missing`);
    }
    return value;
  };
}
