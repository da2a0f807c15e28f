// The biggest spec the validation address takes in practice (about 16 MB of JSON), shared by the hardening bench's processes.
import { generateSpec } from "../../packages/entries/test/fixtures/spec-generator.js";

export function maximumSpec(): Buffer {
  const g = generateSpec({ endpoints: 1200, version: "1", format: "3.0", propertiesPerSchema: 30, extraSchemas: 2600 });
  return Buffer.from(JSON.stringify(g.document));
}
