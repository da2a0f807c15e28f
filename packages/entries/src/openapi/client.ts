// Client of the validation address: in-process by default, HTTP when a remote `VALIDATE_URL` is configured.
import type { ValidationAnswer, ValidationOutcome } from "./validate.js";

export const VALIDATE_PATH = "/api/dev/validate-openapi/";

export interface ValidateRequest {
  body: Uint8Array;
  contentType?: string;
  /** Where the document was fetched: lets the validator resolve same-origin external `$ref`s. */
  baseUrl?: string;
  signal?: AbortSignal;
  /** `false`: no lint wanted (a catalogue submission keeps none); a remote validator lints as it is set up. */
  lint?: false;
}

export interface ValidationClient {
  /** The answer, plus the inventory when validated in process (a remote answer carries none). */
  validate(request: ValidateRequest): Promise<ValidationOutcome>;
}

/** The remote answered something other than the validation address's 200/422. */
export class ValidatorUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ValidatorUnavailableError";
  }
}

export interface RemoteValidationClientOptions {
  /** Base URL of the remote kit: the address is `${url}/api/dev/validate-openapi/`. */
  url: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function validationAddress(base: string): string {
  return `${base.replace(/\/+$/, "")}${VALIDATE_PATH}`;
}

/**
 * Talks to a validation address over HTTP. The URL is the operator's configuration, not user input, so it is
 * not subject to the spec-fetch address policy (a validator on a private network is a legitimate setup).
 */
export function remoteValidationClient(o: RemoteValidationClientOptions): ValidationClient {
  const doFetch = o.fetch ?? fetch;
  return {
    async validate(req) {
      const target = new URL(validationAddress(o.url));
      if (req.baseUrl) target.searchParams.set("baseUrl", req.baseUrl);
      const signals = [AbortSignal.timeout(o.timeoutMs ?? 30_000), ...(req.signal ? [req.signal] : [])];
      let res: Response;
      try {
        res = await doFetch(target, {
          method: "POST",
          headers: { "content-type": req.contentType ?? "application/json", accept: "application/json" },
          body: req.body as BodyInit,
          signal: AbortSignal.any(signals),
        });
      } catch (e) {
        throw new ValidatorUnavailableError(`could not reach ${target.origin}: ${(e as Error).message}`);
      }
      const text = await res.text();
      let answer: ValidationAnswer;
      try {
        answer = JSON.parse(text) as ValidationAnswer;
      } catch {
        throw new ValidatorUnavailableError(`the validation address answered ${res.status} without JSON`);
      }
      if ((res.status === 200 && answer.valid === true) || (res.status === 422 && answer.valid === false)) return { answer };
      throw new ValidatorUnavailableError(`the validation address answered ${res.status}`);
    },
  };
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "0.0.0.0", "[::]"]);

/** Same scheme, port and path, with loopback names treated as one host. */
export function sameAddress(a: string, b: string): boolean {
  let x: URL;
  let y: URL;
  try {
    x = new URL(a);
    y = new URL(b);
  } catch {
    return false;
  }
  const host = (u: URL) => (LOOPBACK.has(u.hostname) ? "loopback" : u.hostname);
  const path = (u: URL) => u.pathname.replace(/\/+$/, "");
  return x.protocol === y.protocol && x.port === y.port && host(x) === host(y) && path(x) === path(y);
}

/**
 * The configured client: in process when no URL is set or when the URL is this very server (a request to
 * ourselves would hold a second request slot and body buffer per submission, and pass through the spec
 * policy's loopback refusal for nothing); over HTTP otherwise. `selfUrl` is read per call because the
 * server's address is only known once it listens.
 */
export function validationClient(o: {
  local: (req: ValidateRequest) => Promise<ValidationOutcome>;
  /** Base URL of a remote kit, or a getter for one known only once servers listen. */
  url?: string | (() => string | undefined);
  selfUrl?: () => string | undefined;
  timeoutMs?: number;
  fetch?: typeof fetch;
}): ValidationClient & { isLocal(): boolean } {
  const urlNow = () => (typeof o.url === "function" ? o.url() : o.url) || undefined;
  const isLocal = () => {
    const url = urlNow();
    if (!url) return true;
    const self = o.selfUrl?.();
    return self !== undefined && sameAddress(validationAddress(url), self);
  };
  return {
    isLocal,
    validate(req) {
      const url = urlNow();
      if (!url || isLocal()) return o.local(req);
      return remoteValidationClient({ url, timeoutMs: o.timeoutMs, fetch: o.fetch }).validate(req);
    },
  };
}
