// Checks real exchanges against a service's own OpenAPI document (Ajv, JSON Schema 2020-12): no exceptions list.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { expect } from "vitest";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

type Doc = Record<string, any>;

/** Headers a service writes on purpose: each one seen on a response must be documented on it. */
const SERVICE_HEADERS = ["location", "retry-after", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "x-request-id", "link"];

export interface Exchange {
  method: string;
  /** Path as sent, mount prefix included, no query. */
  path: string;
  requestBody?: unknown;
  status: number;
  headers: Headers;
  /** Parsed JSON body, when the response is JSON. */
  body: unknown;
  text: string;
}

const pointer = (...parts: string[]) => parts.map((p) => encodeURIComponent(p.replace(/~/g, "~0").replace(/\//g, "~1"))).join("/");

export class OpenApiContract {
  readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  readonly server: string;
  readonly operations: Array<{ method: string; template: string; match: RegExp }>;
  /** Every (method, path template, status) a test observed, to prove coverage. */
  readonly observed = new Set<string>();

  constructor(
    readonly doc: Doc,
    readonly id: string,
  ) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc, id);
    this.server = (doc.servers?.[0]?.url ?? "/").replace(/\/+$/, "");
    this.operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([template, item]) =>
      Object.keys(item)
        .filter((m) => ["get", "post", "put", "patch", "delete"].includes(m))
        .map((method) => ({
          method,
          template,
          match: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}$`),
        })),
    );
  }

  private validator(...path: string[]) {
    const ref = `${this.id}#/${pointer(...path)}`;
    return this.ajv.getSchema(ref) ?? this.ajv.compile({ $ref: ref });
  }

  /** The documented operation of a request path (as sent, mount prefix included). */
  operation(method: string, sentPath: string) {
    expect(sentPath.startsWith(this.server), `${sentPath} is under the document's server ${this.server}`).toBe(true);
    const rel = sentPath.slice(this.server.length) || "/";
    const lower = method.toLowerCase();
    // literal templates outrank parameterised ones, as in the router
    const hits = this.operations.filter((o) => o.method === lower && o.match.test(rel));
    hits.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
    const op = hits[0];
    expect(op, `${method} ${rel} is a documented operation`).toBeDefined();
    return op!;
  }

  /** Whether a request body satisfies the operation's documented request schema. */
  requestValid(method: string, sentPath: string, body: unknown): boolean {
    const op = this.operation(method, sentPath);
    const rb = this.doc.paths[op.template][op.method].requestBody;
    if (!rb) return body === undefined;
    if (body === undefined) return !rb.required;
    const validate = this.validator("paths", op.template, op.method, "requestBody", "content", "application/json", "schema");
    return validate(body) as boolean;
  }

  /** Asserts the response is exactly what the document says this operation answers. */
  check(x: Exchange): void {
    const op = this.operation(x.method, x.path);
    const where = `${x.method} ${op.template} -> ${x.status}`;
    this.observed.add(`${op.method.toUpperCase()} ${op.template} ${x.status}`);
    const responses = this.doc.paths[op.template][op.method].responses as Record<string, any>;
    const documented = responses[String(x.status)];
    expect(documented, `${where}: status documented (has ${Object.keys(responses).join(", ")})`).toBeDefined();
    const resolved = documented.$ref ? this.resolve(documented.$ref) : documented;
    const headerDocs = Object.fromEntries(
      Object.entries((resolved.headers ?? {}) as Record<string, any>).map(([k, v]) => [k.toLowerCase(), { key: k, doc: v }]),
    );
    for (const name of SERVICE_HEADERS)
      if (x.headers.get(name) !== null) expect(headerDocs[name], `${where}: header ${name} documented`).toBeDefined();
    for (const [name, { doc }] of Object.entries(headerDocs)) {
      const value = x.headers.get(name);
      if (doc.required) expect(value, `${where}: required header ${name}`).not.toBeNull();
      if (value !== null && doc.schema) {
        const v = this.ajv.compile(doc.schema);
        expect(v(value), `${where}: header ${name}=${value} fits ${JSON.stringify(doc.schema)}`).toBe(true);
      }
    }
    const content = resolved.content as Record<string, { schema?: unknown }> | undefined;
    if (x.status === 204 || x.text === "") {
      expect(x.text, `${where}: no body`).toBe("");
      return;
    }
    expect(content, `${where}: a body is documented`).toBeDefined();
    const type = (x.headers.get("content-type") ?? "").split(";")[0]!.trim();
    expect(Object.keys(content!), `${where}: content type ${type} documented`).toContain(type);
    if (type !== "application/json") return;
    const base = documented.$ref
      ? documented.$ref.replace(/^#\//, "").split("/").map(unescapePointer)
      : ["paths", op.template, op.method, "responses", String(x.status)];
    const validate = this.validator(...base, "content", "application/json", "schema");
    const ok = validate(x.body);
    expect(ok, `${where}: body ${JSON.stringify(x.body)?.slice(0, 400)} fails: ${this.ajv.errorsText(validate.errors)}`).toBe(true);
    if (x.status >= 400)
      expect((x.body as { requestId?: string }).requestId, `${where}: requestId equals X-Request-Id`).toBe(x.headers.get("x-request-id"));
  }

  private resolve(ref: string): any {
    return ref
      .replace(/^#\//, "")
      .split("/")
      .map(unescapePointer)
      .reduce((node: any, key) => node?.[key], this.doc);
  }
}

const unescapePointer = (s: string) => s.replace(/~1/g, "/").replace(/~0/g, "~");
