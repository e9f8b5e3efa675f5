/**
 * Bundle stub for `ajv` (wrangler.*.toml `[alias]`): the MCP SDK's server imports it as its default
 * JSON Schema validator, but the agent's MCP server passes the Workers-safe CfWorkerJsonSchemaValidator
 * (ajv compiles with `new Function`, which workerd refuses). Never constructed; throws if it were.
 */
export default class AjvStub {
  constructor() {
    throw new Error('ajv is not bundled: pass jsonSchemaValidator (CfWorkerJsonSchemaValidator) to the MCP SDK');
  }
}
