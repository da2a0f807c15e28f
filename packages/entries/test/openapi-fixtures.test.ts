// Agreement with independent OpenAPI corpora (issue #13): every `pass` fixture answers valid with zero warnings, every
// `fail` fixture gets a warning or error at its defect's JSON pointer whose message names the defect. The fixtures
// are too large to vendor: they live in `fixtures/openapi` of the folder MOUNTKIT_SHARED_DIR names (default: `shared` beside the clone).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { validateSpec } from "@mountkit/entries/node";
import { describe, expect, it } from "vitest";

const repoRoot = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
const root = join(process.env.MOUNTKIT_SHARED_DIR ?? join(repoRoot, "..", "shared"), "fixtures", "openapi");
const available = existsSync(root);
if (!available) {
  if (process.env.CI === "true") throw new Error(`OpenAPI fixtures missing at ${root}: CI has shared/ beside the clone`);
  console.log(`skipping the OpenAPI fixture corpora: ${root} does not exist (set MOUNTKIT_SHARED_DIR to the shared/ folder)`);
}

/** Not in the shared corpus: a copy beside the tests (origin and licence in its README). */
const SWAGGER_PARSER_PETSTORE = fileURLToPath(new URL("./fixtures/petstore/swagger-parser-petstore.yaml", import.meta.url));

/** Each defect: the pointer of the part that is wrong, and what a message about it must name. */
const DEFECTS: Record<string, { at: string; names: RegExp }> = {
  "oai31/fail/example-examples.yaml": { at: "/components/parameters/animal", names: /`examples?`/ },
  "oai31/fail/header-object-allowReserved.yaml": { at: "/components/headers/Style", names: /`allowReserved`/ },
  "oai31/fail/invalid_schema_types.yaml": { at: "/components/schemas/invalid_null", names: /type object or boolean/ },
  "oai31/fail/link-object-no-body.yaml": { at: "/components/links/Link-Object-with-body-property", names: /`body`/ },
  "oai31/fail/no_containers.yaml": { at: "/paths", names: /`paths`, `webhooks` or `components`/ },
  "oai31/fail/parameter-object-cookie-form-allowReserved.yaml": { at: "/components/parameters/style_form", names: /`allowReserved`/ },
  "oai31/fail/parameter-object-header-allowReserved.yaml": { at: "/components/parameters/header", names: /`allowReserved`/ },
  "oai31/fail/parameter-object-path-allowReserved.yaml": { at: "/components/parameters/path", names: /`allowReserved`/ },
  "oai31/fail/server_enum_empty.yaml": { at: "/servers/0/variables/var/enum", names: /`enum` must NOT have fewer than 1 items/ },
  "oai31/fail/servers.yaml": { at: "/servers", names: /`servers` must be of type array/ },
  "oai31/fail/unknown_container.yaml": { at: "/paths", names: /`paths`, `webhooks` or `components`/ },
  "seriousme/fail/validation_empty.json": { at: "", names: /no `openapi` or `swagger` version/ },
  "seriousme/fail/validation_invalid-refs.yaml": {
    at: "/paths/~1get/get/responses/200/content/application~1json/schema",
    names: /dangling reference #\/components\/schemas\/nonExisting1/,
  },
  "seriousme/fail/validation_invalid-spec.json": { at: "/info", names: /`info` is required/ },
  "sp-invalid/fail/newer-version.yaml": { at: "/swagger", names: /unsupported Swagger version "3\.0"/ },
  "sp-invalid/fail/no-paths-or-webhooks.yaml": { at: "/paths", names: /`paths`, `webhooks` or `components`/ },
  "sp-invalid/fail/not-swagger.yaml": { at: "", names: /no `openapi` or `swagger` version/ },
  "sp-invalid/fail/numeric-info-version.yaml": { at: "/info/version", names: /`info\.version` should be a string/ },
  "sp-invalid/fail/numeric-version.yaml": { at: "/swagger", names: /`swagger` should be a string/ },
  "sp-invalid/fail/old-version.yaml": { at: "/swagger", names: /unsupported Swagger version "1\.2"/ },
  "sp-validate-schema/fail/anyof.yaml": { at: "/paths/~1users/get/responses/default/schema", names: /`anyOf` is not allowed/ },
  "sp-validate-schema/fail/file-body-param.yaml": {
    at: "/paths/~1users~1{username}~1profile~1image/parameters/1/schema/type",
    names: /"file" is not allowed/,
  },
  "sp-validate-schema/fail/file-header-param.yaml": {
    at: "/paths/~1users~1{username}~1profile~1image/parameters/1",
    names: /"file" is not allowed|file parameter "image"/,
  },
  "sp-validate-schema/fail/invalid-param-location.yaml": {
    at: "/paths/~1users~1{username}/parameters/1/in",
    names: /"cookie" is not allowed: use one of "body", "header", "formData", "query", "path"/,
  },
  "sp-validate-schema/fail/invalid-param-type.yaml": { at: "/paths/~1users/parameters/0/type", names: /"user" is not allowed/ },
  "sp-validate-schema/fail/invalid-response-code.yaml": { at: "/paths/~1users/get/responses", names: /foobar/ },
  "sp-validate-schema/fail/invalid-response-header-type.yaml": {
    at: "/paths/~1users/get/responses/default/headers/Last-Modified/type",
    names: /"date" is not allowed/,
  },
  "sp-validate-schema/fail/invalid-response-type.yaml": {
    at: "/paths/~1users/get/responses/default/schema/type",
    names: /"user" is not allowed/,
  },
  "sp-validate-schema/fail/invalid-schema-type.yaml": { at: "/paths/~1users/parameters/0/schema/type", names: /"user" is not allowed/ },
  "sp-validate-schema/fail/multi-header-param.yaml": {
    at: "/paths/~1users/parameters/0/collectionFormat",
    names: /"multi" is not allowed/,
  },
  "sp-validate-schema/fail/multi-path-param.yaml": {
    at: "/paths/~1users~1{usernames}/parameters/0/collectionFormat",
    names: /"multi" is not allowed/,
  },
  "sp-validate-schema/fail/non-primitive-param-type.yaml": { at: "/paths/~1users/parameters/0/type", names: /"object" is not allowed/ },
  "sp-validate-schema/fail/non-primitive-response-header-type.yaml": {
    at: "/paths/~1users/get/responses/default/headers/Last-Modified/type",
    names: /"object" is not allowed/,
  },
  "sp-validate-schema/fail/non-required-path-param.yaml": {
    at: "/paths/~1users~1{username}~1profile~1image~1{img_id}/parameters/1",
    names: /must have `required: true`/,
  },
  "sp-validate-schema/fail/oneof.yaml": { at: "/paths/~1users/get/responses/default/schema", names: /`oneOf` is not allowed/ },
  "sp-validate-schema/fail/optional-path-param.yaml": {
    at: "/paths/~1users~1{username}~1profile~1image~1{img_id}/parameters/1",
    names: /`required: true`|`required`: false is not allowed/,
  },
  "sp-validate-schema/fail/ref-to-invalid-path.yaml": { at: "/paths/~1products", names: /not a path item .*#\/definitions\/products/ },
  "sp-validate-spec/fail/array-body-no-items.yaml": { at: "/paths/~1users/parameters/0/schema", names: /without `items`/ },
  "sp-validate-spec/fail/array-no-items.yaml": { at: "/paths/~1users/parameters/0", names: /without `items`/ },
  "sp-validate-spec/fail/array-response-body-no-items.yaml": { at: "/paths/~1users/get/responses/200/schema", names: /without `items`/ },
  "sp-validate-spec/fail/array-response-header-no-items.yaml": {
    at: "/paths/~1users/get/responses/default/headers/Last-Modified",
    names: /without `items`/,
  },
  "sp-validate-spec/fail/body-and-form-params.yaml": { at: "/paths/~1users~1{username}/post/parameters", names: /body and formData/ },
  "sp-validate-spec/fail/duplicate-operation-ids.yaml": { at: "/paths/~1users/post/operationId", names: /duplicate operationId "users"/ },
  "sp-validate-spec/fail/duplicate-operation-params.yaml": {
    at: "/paths/~1users~1{username}/get/parameters",
    names: /duplicate parameter: "username" in path/,
  },
  "sp-validate-spec/fail/duplicate-path-params.yaml": {
    at: "/paths/~1users~1{username}/parameters",
    names: /duplicate parameter: "foo" in header/,
  },
  "sp-validate-spec/fail/duplicate-path-placeholders.yaml": {
    at: "/paths/~1users~1{username}~1profile~1{username}~1image~1{img_id}",
    names: /duplicate path placeholder \{username\}/,
  },
  "sp-validate-spec/fail/file-invalid-consumes.yaml": {
    at: "/paths/~1users~1{username}~1profile~1image/parameters/1",
    names: /file parameter "image" needs consumes/,
  },
  "sp-validate-spec/fail/file-no-consumes.yaml": {
    at: "/paths/~1users~1{username}~1profile~1image/parameters/1",
    names: /file parameter "image" needs consumes/,
  },
  "sp-validate-spec/fail/invalid-response-code.yaml": { at: "/paths/~1users/get/responses/888", names: /invalid response code "888"/ },
  "sp-validate-spec/fail/multiple-body-params.yaml": { at: "/paths/~1users~1{username}", names: /more than one body parameter/ },
  "sp-validate-spec/fail/multiple-operation-body-params.yaml": {
    at: "/paths/~1users~1{username}/patch/parameters",
    names: /more than one body parameter/,
  },
  "sp-validate-spec/fail/multiple-path-body-params.yaml": {
    at: "/paths/~1users~1{username}/parameters",
    names: /more than one body parameter/,
  },
  "sp-validate-spec/fail/no-path-params.yaml": { at: "/paths/~1users~1{username}~1{foo}/get", names: /\{username\} .* is not declared/ },
  "sp-validate-spec/fail/path-param-no-placeholder.yaml": {
    at: "/paths/~1users~1{username}/post/parameters/1",
    names: /"foo" has no \{foo\} placeholder/,
  },
  "sp-validate-spec/fail/path-placeholder-no-param.yaml": {
    at: "/paths/~1users~1{username}~1{foo}/get",
    names: /\{foo\} .* is not declared/,
  },
  "sp-validate-spec/fail/required-property-not-defined-definitions.yaml": {
    at: "/definitions/Pet/required/1",
    names: /required property "photoUrls" is not defined/,
  },
  "sp-validate-spec/fail/required-property-not-defined-input.yaml": {
    at: "/paths/~1pets/post/parameters/0/schema/required/0",
    names: /required property "notExists" is not defined/,
  },
};

function fixtures(): Array<{ id: string; expected: "pass" | "fail"; file: string }> {
  const out = [];
  for (const set of readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()))
    for (const expected of ["pass", "fail"] as const) {
      const dir = join(root, set.name, expected);
      if (existsSync(dir))
        for (const f of readdirSync(dir).sort()) out.push({ id: `${set.name}/${expected}/${f}`, expected, file: join(dir, f) });
    }
  return out;
}

describe.skipIf(!available)("independent OpenAPI fixture corpora", () => {
  it("every pass document is valid with no warnings; every fail document is reported at its defect", async () => {
    const all = fixtures();
    expect(all.length).toBeGreaterThan(100);
    const table = { pass: { clean: 0, flagged: 0 }, fail: { clean: 0, flagged: 0 } };
    const problems: string[] = [];
    for (const f of all) {
      const { answer } = await validateSpec(readFileSync(f.file), { maxWarnings: 1000 });
      const issues = answer.valid ? answer.warnings : answer.errors;
      table[f.expected][issues.length ? "flagged" : "clean"]++;
      if (f.expected === "pass") {
        if (!answer.valid || issues.length) problems.push(`${f.id}: expected valid with no warnings, got ${JSON.stringify(issues)}`);
        continue;
      }
      const defect = DEFECTS[f.id];
      if (!defect) {
        problems.push(`${f.id}: no defect described for this fail fixture`);
        continue;
      }
      const hit = issues.some((i) => (i.path === defect.at || i.path.startsWith(`${defect.at}/`)) && defect.names.test(i.message));
      if (!hit) problems.push(`${f.id}: nothing at ${defect.at} matching ${defect.names}; got ${JSON.stringify(issues)}`);
    }
    console.log(
      [
        "confusion table (rows: what the corpus says; columns: what the address answered)",
        "            flagged  clean",
        `  fail     ${String(table.fail.flagged).padStart(8)} ${String(table.fail.clean).padStart(6)}`,
        `  pass     ${String(table.pass.flagged).padStart(8)} ${String(table.pass.clean).padStart(6)}`,
      ].join("\n"),
    );
    expect(problems).toEqual([]);
    // every described defect belongs to a fixture that still exists
    expect(Object.keys(DEFECTS).filter((id) => !all.some((f) => f.id === id))).toEqual([]);
  }, 120_000);

  it("the petstore fixtures of seriousme (shared corpus) and swagger-parser (test/fixtures/petstore) give zero warnings", async () => {
    const petstores = fixtures().filter((f) => f.expected === "pass" && /petstore/i.test(f.id));
    expect(petstores.filter((f) => f.id.startsWith("seriousme/")).length).toBeGreaterThanOrEqual(5);
    petstores.push({ id: "swagger-parser petstore.yaml", expected: "pass", file: SWAGGER_PARSER_PETSTORE });
    for (const f of petstores) {
      const { answer } = await validateSpec(readFileSync(f.file));
      expect(answer, f.id).toMatchObject({ valid: true, warningCount: 0 });
    }
  }, 60_000);
});

describe("swagger-parser's petstore (kept in the repository)", () => {
  it("is valid with zero warnings, as swagger-parser itself judges it", async () => {
    const { answer } = await validateSpec(readFileSync(SWAGGER_PARSER_PETSTORE));
    expect(answer).toMatchObject({ valid: true, openapi: "2.0", title: "Swagger petstore", endpoints: 10, warnings: [], warningCount: 0 });
  });
});
