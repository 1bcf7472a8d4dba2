/**
 * The dashboard's one way to the API: same origin, under the mount the server announced (/dashboard/api),
 * with the signed-in person's access token as a Bearer header. A 401 means the token expired or was refused:
 * sign in again (the page comes back to where it was).
 */
import { accessToken, signIn } from "./auth.ts";

let apiBase = "/dashboard/api";

export function setApiBase(base: string): void {
  apiBase = base;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function request(path: string, accept: string): Promise<Response> {
  const headers: Record<string, string> = { accept };
  const token = accessToken();
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${apiBase}${path}`, { headers });
  if (response.status === 401) {
    await signIn();
    throw new ApiError(401, "SignInRequired", "signing in again");
  }
  if (!response.ok) {
    let code = "HttpError";
    let message = `${response.status} ${response.statusText}`;
    try {
      const body = (await response.json()) as { error?: { code?: string; message?: string } };
      code = body.error?.code ?? code;
      message = body.error?.message ?? message;
    } catch {}
    throw new ApiError(response.status, code, message);
  }
  return response;
}

export async function getJson<T>(path: string): Promise<T> {
  return (await request(path, "application/json")).json() as Promise<T>;
}

export async function getText(path: string): Promise<string> {
  return (await request(path, "text/plain")).text();
}

/** `/clusters/c/namespaces/ns/releases/name`, each part encoded. */
export function releasePath(r: { cluster: string; namespace: string; name: string }): string {
  return `/clusters/${encodeURIComponent(r.cluster)}/namespaces/${encodeURIComponent(r.namespace)}/releases/${encodeURIComponent(r.name)}`;
}

/** `?a=1&b=x` of the params that have a value (none: ""): the API's query strings and the pages' hash links. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}
