/** The JSON of a queue message's body, or `fail`'s error (each message kind keeps its own code and wording). */
export function messageJson(body: string, fail: () => Error): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw fail();
  }
}
