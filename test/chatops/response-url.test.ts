import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { ChatDeliveryError, ResponseUrlRefusedError } from "../../shared/notify/errors.ts";
import { checkResponseUrl, parseAllowHosts, postToResponseUrl } from "../../shared/notify/response-url.ts";

test("Slack's own response_urls pass; any other host is refused unless allowed", () => {
  const slack = "https://hooks.slack.com/commands/T1DC2JH3J/397700885554/96rGlfmibIGlgcZRskXaIFfN";
  assert.equal(checkResponseUrl(slack, []).href, slack);
  assert.ok(checkResponseUrl("https://hooks.slack.com/actions/T1/2/x", []));
  for (const url of [
    "https://evil.example.com/commands/T1/2/x",
    "http://hooks.slack.com/commands/T1/2/x",
    "https://hooks.slack.com:8443/commands/T1/2/x",
    "https://hooks.slack.com.evil.example/commands/x",
    "https://user:pw@hooks.slack.com/commands/x",
    "https://hooks.slack.com/services/T1/B1/x",
    "http://127.0.0.1:9999/hook",
    "http://169.254.169.254/latest/meta-data/",
    "file:///etc/passwd",
    "not a url",
  ]) {
    assert.throws(() => checkResponseUrl(url, []), ResponseUrlRefusedError, url);
  }
  const allowed = parseAllowHosts(" 127.0.0.1:9999 , receiver.internal ,[::1]:8080");
  assert.deepEqual(allowed, [
    { host: "127.0.0.1", port: 9999 },
    { host: "receiver.internal" },
    { host: "[::1]", port: 8080 },
  ]);
  assert.ok(checkResponseUrl("http://127.0.0.1:9999/hook", allowed));
  assert.ok(checkResponseUrl("https://receiver.internal/x", allowed));
  assert.ok(checkResponseUrl("http://receiver.internal/x", allowed));
  assert.ok(checkResponseUrl("http://[::1]:8080/x", allowed));
  assert.throws(() => checkResponseUrl("http://127.0.0.1:9998/hook", allowed), /not hooks\.slack\.com/);
  assert.throws(() => checkResponseUrl("https://receiver.internal:444/x", allowed), ResponseUrlRefusedError);
  assert.throws(
    () => parseAllowHosts("https://x.example/, a b"),
    /SLACK_RESPONSE_URL_ALLOW_HOSTS: "https:\/\/x.example\/" is not/,
  );
});

async function receiver(statuses: number[], headers: Record<string, string> = {}) {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      bodies.push(body);
      const status = statuses[Math.min(bodies.length - 1, statuses.length - 1)];
      res.writeHead(status, status === 429 ? headers : {});
      res.end(status === 200 ? "ok" : "nope");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/hook`),
    bodies,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

test("5xx and 429 are retried with backoff (Retry-After honoured) inside the 5-post budget", async () => {
  const r = await receiver([503, 429, 200], { "retry-after": "1" });
  const delays: number[] = [];
  try {
    const result = await postToResponseUrl(
      r.url,
      { text: "hi" },
      { sleep: async (ms) => void delays.push(ms), random: () => 1 },
    );
    assert.deepEqual(result, { attempts: 3, status: 200 });
    assert.deepEqual(delays, [500, 1000]);
    assert.deepEqual(
      r.bodies.map((b) => JSON.parse(b)),
      [{ text: "hi" }, { text: "hi" }, { text: "hi" }],
    );
  } finally {
    await r.close();
  }
});

test("the budget ends the retries; a 4xx is not retried", async () => {
  const r = await receiver([500]);
  try {
    await assert.rejects(
      postToResponseUrl(r.url, { text: "x" }, { sleep: async () => {}, budget: 5 }),
      (error: Error) => error instanceof ChatDeliveryError && /HTTP 500/.test(error.message),
    );
    assert.equal(r.bodies.length, 5, "Slack takes at most 5 posts per response_url");
  } finally {
    await r.close();
  }
  const gone = await receiver([404]);
  try {
    await assert.rejects(
      postToResponseUrl(gone.url, { text: "x" }, { sleep: async () => {} }),
      /refused the answer: HTTP 404/,
    );
    assert.equal(gone.bodies.length, 1);
  } finally {
    await gone.close();
  }
});

test("a redirect is not followed", async () => {
  const server = createServer((_req, res) => {
    res.writeHead(302, { location: "http://169.254.169.254/" });
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await assert.rejects(postToResponseUrl(url, {}, { sleep: async () => {} }), /HTTP 302/);
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});
