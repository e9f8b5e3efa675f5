/** Bundle stub for `ajv-formats` (see ./ajv.ts): never called. */
export default function addFormatsStub(): never {
  throw new Error('ajv-formats is not bundled: the MCP server validates with CfWorkerJsonSchemaValidator');
}
