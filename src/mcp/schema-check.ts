/**
 * JSON Schema checks for tool servers: a tool's `inputSchema` must be a valid JSON Schema
 * (2020-12) describing an object, and tools/call arguments are checked against it before they go
 * upstream.
 *
 * `@cfworker/json-schema` runs in workerd (no code generation) but does not implement
 * `$dynamicRef`, so the 2020-12 meta-schema below is the official one with every
 * `"$dynamicRef": "#meta"` rewritten to a plain `$ref` to the top meta-schema. Without that
 * rewrite, sub-schemas are never checked and typos such as `{"type": "strin"}` pass.
 */
import { Validator, type OutputUnit, type Schema } from '@cfworker/json-schema';

const META_SCHEMA_ID = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The 2020-12 meta-schema and its vocabularies (core, applicator, unevaluated, validation,
 * meta-data, format-annotation, content), from json-schema.org, dynamic refs made static.
 */
const META_SCHEMAS: Schema[] = [
  {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/schema",
    "$vocabulary": {
      "https://json-schema.org/draft/2020-12/vocab/core": true,
      "https://json-schema.org/draft/2020-12/vocab/applicator": true,
      "https://json-schema.org/draft/2020-12/vocab/unevaluated": true,
      "https://json-schema.org/draft/2020-12/vocab/validation": true,
      "https://json-schema.org/draft/2020-12/vocab/meta-data": true,
      "https://json-schema.org/draft/2020-12/vocab/format-annotation": true,
      "https://json-schema.org/draft/2020-12/vocab/content": true
    },
    "$dynamicAnchor": "meta",
    "title": "Core and Validation specifications meta-schema",
    "allOf": [
      {
        "$ref": "meta/core"
      },
      {
        "$ref": "meta/applicator"
      },
      {
        "$ref": "meta/unevaluated"
      },
      {
        "$ref": "meta/validation"
      },
      {
        "$ref": "meta/meta-data"
      },
      {
        "$ref": "meta/format-annotation"
      },
      {
        "$ref": "meta/content"
      }
    ],
    "type": [
      "object",
      "boolean"
    ],
    "$comment": "This meta-schema also defines keywords that have appeared in previous drafts in order to prevent incompatible extensions as they remain in common use.",
    "properties": {
      "definitions": {
        "$comment": "\"definitions\" has been replaced by \"$defs\".",
        "type": "object",
        "additionalProperties": {
          "$ref": "https://json-schema.org/draft/2020-12/schema"
        },
        "deprecated": true,
        "default": {}
      },
      "dependencies": {
        "$comment": "\"dependencies\" has been split and replaced by \"dependentSchemas\" and \"dependentRequired\" in order to serve their differing semantics.",
        "type": "object",
        "additionalProperties": {
          "anyOf": [
            {
              "$ref": "https://json-schema.org/draft/2020-12/schema"
            },
            {
              "$ref": "meta/validation#/$defs/stringArray"
            }
          ]
        },
        "deprecated": true,
        "default": {}
      },
      "$recursiveAnchor": {
        "$comment": "\"$recursiveAnchor\" has been replaced by \"$dynamicAnchor\".",
        "$ref": "meta/core#/$defs/anchorString",
        "deprecated": true
      },
      "$recursiveRef": {
        "$comment": "\"$recursiveRef\" has been replaced by \"$dynamicRef\".",
        "$ref": "meta/core#/$defs/uriReferenceString",
        "deprecated": true
      }
    }
  },
  {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/meta/core",
    "$vocabulary": {
      "https://json-schema.org/draft/2020-12/vocab/core": true
    },
    "$dynamicAnchor": "meta",
    "title": "Core vocabulary meta-schema",
    "type": [
      "object",
      "boolean"
    ],
    "properties": {
      "$id": {
        "$ref": "#/$defs/uriReferenceString",
        "$comment": "Non-empty fragments not allowed.",
        "pattern": "^[^#]*#?$"
      },
      "$schema": {
        "$ref": "#/$defs/uriString"
      },
      "$ref": {
        "$ref": "#/$defs/uriReferenceString"
      },
      "$anchor": {
        "$ref": "#/$defs/anchorString"
      },
      "$dynamicRef": {
        "$ref": "#/$defs/uriReferenceString"
      },
      "$dynamicAnchor": {
        "$ref": "#/$defs/anchorString"
      },
      "$vocabulary": {
        "type": "object",
        "propertyNames": {
          "$ref": "#/$defs/uriString"
        },
        "additionalProperties": {
          "type": "boolean"
        }
      },
      "$comment": {
        "type": "string"
      },
      "$defs": {
        "type": "object",
        "additionalProperties": {
          "$ref": "https://json-schema.org/draft/2020-12/schema"
        }
      }
    },
    "$defs": {
      "anchorString": {
        "type": "string",
        "pattern": "^[A-Za-z_][-A-Za-z0-9._]*$"
      },
      "uriString": {
        "type": "string",
        "format": "uri"
      },
      "uriReferenceString": {
        "type": "string",
        "format": "uri-reference"
      }
    }
  },
  {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/meta/applicator",
    "$vocabulary": {
      "https://json-schema.org/draft/2020-12/vocab/applicator": true
    },
    "$dynamicAnchor": "meta",
    "title": "Applicator vocabulary meta-schema",
    "type": [
      "object",
      "boolean"
    ],
    "properties": {
      "prefixItems": {
        "$ref": "#/$defs/schemaArray"
      },
      "items": {
        "$ref": "https://json-schema.org/draft/2020-12/schema"
      },
      "contains": {
        "$ref": "https://json-schema.org/draft/2020-12/schema"
      },
      "additionalProperties": {
        "$ref": "https://json-schema.org/draft/2020-12/schema"
      },
      "properties": {
        "type": "object",
        "additionalProperties": {
          "$ref": "https://json-schema.org/draft/2020-12/schema"
        },
        "default": {}
      },
      "patternProperties": {
        "type": "object",
        "additionalProperties": {
          "$ref": "https://json-schema.org/draft/2020-12/schema"
        },
        "propertyNames": {
          "format": "regex"
        },
        "default": {}
      },
      "dependentSchemas": {
        "type": "object",
        "additionalProperties": {
          "$ref": "https://json-schema.org/draft/2020-12/schema"
        },
        "default": {}
      },
      "propertyNames": {
        "$ref": "https://json-schema.org/draft/2020-12/schema"
      },
      "if": {
        "$ref": "https://json-schema.org/draft/2020-12/schema"
      },
      "then": {
        "$ref": "https://json-schema.org/draft/2020-12/schema"
      },
      "else": {
        "$ref": "https://json-schema.org/draft/2020-12/schema"
      },
      "allOf": {
        "$ref": "#/$defs/schemaArray"
      },
      "anyOf": {
        "$ref": "#/$defs/schemaArray"
      },
      "oneOf": {
        "$ref": "#/$defs/schemaArray"
      },
      "not": {
        "$ref": "https://json-schema.org/draft/2020-12/schema"
      }
    },
    "$defs": {
      "schemaArray": {
        "type": "array",
        "minItems": 1,
        "items": {
          "$ref": "https://json-schema.org/draft/2020-12/schema"
        }
      }
    }
  },
  {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/meta/unevaluated",
    "$vocabulary": {
      "https://json-schema.org/draft/2020-12/vocab/unevaluated": true
    },
    "$dynamicAnchor": "meta",
    "title": "Unevaluated applicator vocabulary meta-schema",
    "type": [
      "object",
      "boolean"
    ],
    "properties": {
      "unevaluatedItems": {
        "$ref": "https://json-schema.org/draft/2020-12/schema"
      },
      "unevaluatedProperties": {
        "$ref": "https://json-schema.org/draft/2020-12/schema"
      }
    }
  },
  {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/meta/validation",
    "$vocabulary": {
      "https://json-schema.org/draft/2020-12/vocab/validation": true
    },
    "$dynamicAnchor": "meta",
    "title": "Validation vocabulary meta-schema",
    "type": [
      "object",
      "boolean"
    ],
    "properties": {
      "type": {
        "anyOf": [
          {
            "$ref": "#/$defs/simpleTypes"
          },
          {
            "type": "array",
            "items": {
              "$ref": "#/$defs/simpleTypes"
            },
            "minItems": 1,
            "uniqueItems": true
          }
        ]
      },
      "const": true,
      "enum": {
        "type": "array",
        "items": true
      },
      "multipleOf": {
        "type": "number",
        "exclusiveMinimum": 0
      },
      "maximum": {
        "type": "number"
      },
      "exclusiveMaximum": {
        "type": "number"
      },
      "minimum": {
        "type": "number"
      },
      "exclusiveMinimum": {
        "type": "number"
      },
      "maxLength": {
        "$ref": "#/$defs/nonNegativeInteger"
      },
      "minLength": {
        "$ref": "#/$defs/nonNegativeIntegerDefault0"
      },
      "pattern": {
        "type": "string",
        "format": "regex"
      },
      "maxItems": {
        "$ref": "#/$defs/nonNegativeInteger"
      },
      "minItems": {
        "$ref": "#/$defs/nonNegativeIntegerDefault0"
      },
      "uniqueItems": {
        "type": "boolean",
        "default": false
      },
      "maxContains": {
        "$ref": "#/$defs/nonNegativeInteger"
      },
      "minContains": {
        "$ref": "#/$defs/nonNegativeInteger",
        "default": 1
      },
      "maxProperties": {
        "$ref": "#/$defs/nonNegativeInteger"
      },
      "minProperties": {
        "$ref": "#/$defs/nonNegativeIntegerDefault0"
      },
      "required": {
        "$ref": "#/$defs/stringArray"
      },
      "dependentRequired": {
        "type": "object",
        "additionalProperties": {
          "$ref": "#/$defs/stringArray"
        }
      }
    },
    "$defs": {
      "nonNegativeInteger": {
        "type": "integer",
        "minimum": 0
      },
      "nonNegativeIntegerDefault0": {
        "$ref": "#/$defs/nonNegativeInteger",
        "default": 0
      },
      "simpleTypes": {
        "enum": [
          "array",
          "boolean",
          "integer",
          "null",
          "number",
          "object",
          "string"
        ]
      },
      "stringArray": {
        "type": "array",
        "items": {
          "type": "string"
        },
        "uniqueItems": true,
        "default": []
      }
    }
  },
  {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/meta/meta-data",
    "$vocabulary": {
      "https://json-schema.org/draft/2020-12/vocab/meta-data": true
    },
    "$dynamicAnchor": "meta",
    "title": "Meta-data vocabulary meta-schema",
    "type": [
      "object",
      "boolean"
    ],
    "properties": {
      "title": {
        "type": "string"
      },
      "description": {
        "type": "string"
      },
      "default": true,
      "deprecated": {
        "type": "boolean",
        "default": false
      },
      "readOnly": {
        "type": "boolean",
        "default": false
      },
      "writeOnly": {
        "type": "boolean",
        "default": false
      },
      "examples": {
        "type": "array",
        "items": true
      }
    }
  },
  {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/meta/format-annotation",
    "$vocabulary": {
      "https://json-schema.org/draft/2020-12/vocab/format-annotation": true
    },
    "$dynamicAnchor": "meta",
    "title": "Format vocabulary meta-schema for annotation results",
    "type": [
      "object",
      "boolean"
    ],
    "properties": {
      "format": {
        "type": "string"
      }
    }
  },
  {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://json-schema.org/draft/2020-12/meta/content",
    "$vocabulary": {
      "https://json-schema.org/draft/2020-12/vocab/content": true
    },
    "$dynamicAnchor": "meta",
    "title": "Content vocabulary meta-schema",
    "type": [
      "object",
      "boolean"
    ],
    "properties": {
      "contentEncoding": {
        "type": "string"
      },
      "contentMediaType": {
        "type": "string"
      },
      "contentSchema": {
        "$ref": "https://json-schema.org/draft/2020-12/schema"
      }
    }
  },
];

const MAX_PROBLEMS = 10;

let metaValidator: Validator | undefined;

function getMetaValidator(): Validator {
  if (metaValidator === undefined) {
    const [top, ...vocabularies] = structuredClone(META_SCHEMAS);
    const validator = new Validator(top as Schema, '2020-12', false);
    for (const vocabulary of vocabularies) validator.addSchema(vocabulary);
    metaValidator = validator;
  }
  return metaValidator;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The most specific errors first: cfworker reports the failing leaf and every parent above it. */
function describe(errors: OutputUnit[]): string[] {
  const leaves = errors.filter(
    (error) => !errors.some((other) => other !== error && other.keywordLocation.startsWith(`${error.keywordLocation}/`)),
  );
  const seen = new Set<string>();
  const out: string[] = [];
  for (const error of leaves.length > 0 ? leaves : errors) {
    const line = `${error.instanceLocation || '#'}: ${error.error}`;
    if (seen.has(line)) continue;
    seen.add(line);
    out.push(line);
    if (out.length >= MAX_PROBLEMS) break;
  }
  return out;
}

/**
 * Checks a tool's `inputSchema`: a JSON object, valid against the JSON Schema 2020-12
 * meta-schema, describing an object (`type: "object"` or no `type`), as MCP requires.
 */
export function checkToolSchema(schema: unknown): { ok: true } | { ok: false; problem: string } {
  if (!isPlainObject(schema)) return { ok: false, problem: 'inputSchema must be a JSON object' };
  const type = schema.type;
  const typeIsObject =
    type === undefined || type === 'object' || (Array.isArray(type) && type.length === 1 && type[0] === 'object');
  let result;
  try {
    result = getMetaValidator().validate(structuredClone(schema));
  } catch (err) {
    return { ok: false, problem: `inputSchema cannot be checked: ${errorText(err)}` };
  }
  if (!result.valid) {
    return { ok: false, problem: `inputSchema is not valid JSON Schema: ${describe(result.errors).join('; ')}` };
  }
  if (!typeIsObject) return { ok: false, problem: 'inputSchema must describe an object (type "object")' };
  return { ok: true };
}

/** Checks tools/call arguments against the tool's input schema. */
export function validateArguments(
  schema: unknown,
  args: unknown,
): { ok: true } | { ok: false; problems: string[] } {
  if (!isPlainObject(args)) return { ok: false, problems: ['arguments must be a JSON object'] };
  if (!isPlainObject(schema) && typeof schema !== 'boolean') {
    return { ok: false, problems: ['tool has no usable input schema'] };
  }
  try {
    // The validator annotates the schema objects it is given: never hand it a caller's object.
    const validator = new Validator(structuredClone(schema) as Schema | boolean, '2020-12', false);
    const result = validator.validate(structuredClone(args));
    if (result.valid) return { ok: true };
    const problems = describe(result.errors);
    return { ok: false, problems: problems.length > 0 ? problems : ['arguments do not match the tool schema'] };
  } catch (err) {
    return { ok: false, problems: [`arguments cannot be checked against the tool schema: ${errorText(err)}`] };
  }
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (text.split('\n')[0] ?? '').slice(0, 200);
}

export { META_SCHEMA_ID };
