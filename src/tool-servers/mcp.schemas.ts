/**
 * MCP's own shapes in the OpenAPI document: a tool (every field of MCP's tool shape) and a tool
 * result with its content items as MCP's content union, so generated clients can narrow an item
 * by `type`.
 */
import { z } from '@hono/zod-openapi';
import { TOOL_FIELD_LIMITS } from './tool-rules';

const JsonObjectSchema = z.record(z.string(), z.unknown());

const IconSchema = z
  .object({
    src: z.string(),
    mimeType: z.string().optional(),
    sizes: z.array(z.string()).optional(),
    theme: z.enum(['light', 'dark']).optional(),
  })
  .catchall(z.unknown())
  .openapi('McpIcon');

const ToolAnnotationsSchema = z
  .object({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  })
  .catchall(z.unknown())
  .openapi('McpToolAnnotations', {
    description: `Hints about the tool's behaviour, as the server gives them; at most ${TOOL_FIELD_LIMITS.annotationsBytes} bytes`,
  });

const L = TOOL_FIELD_LIMITS;

export const ToolSchema = z
  .object({
    name: z.string().max(L.nameChars),
    title: z.string().max(L.titleChars).optional(),
    description: z.string().max(L.descriptionChars).optional(),
    inputSchema: JsonObjectSchema.openapi({ description: 'JSON Schema (2020-12) of the arguments; checked before every call' }),
    outputSchema: JsonObjectSchema.optional().openapi({
      description:
        'JSON Schema (2020-12) of `structuredContent`; when given, every result is checked against it (502 `tool_output_invalid`)',
    }),
    annotations: ToolAnnotationsSchema.optional(),
    execution: z
      .object({ taskSupport: z.enum(['forbidden', 'optional', 'required']).optional() })
      .catchall(z.unknown())
      .optional()
      .openapi({ description: `At most ${L.executionBytes} bytes` }),
    icons: z
      .array(IconSchema)
      .max(L.icons)
      .optional()
      .openapi({ description: `At most ${L.icons} icons, ${L.iconsBytes} bytes` }),
    _meta: JsonObjectSchema.optional().openapi({ description: `The server's metadata, at most ${L.metaBytes} bytes` }),
  })
  .openapi('McpTool', { description: 'A tool as MCP defines it; every field the server gave is kept' });

/** The connection's snapshot as listed: what a person picks a tool by (the schemas are in GET …/tools). */
export const ToolSummarySchema = ToolSchema.pick({
  name: true,
  title: true,
  description: true,
  annotations: true,
  execution: true,
}).openapi('McpToolSummary');

const ContentAnnotationsSchema = z
  .object({
    audience: z.array(z.enum(['user', 'assistant'])).optional(),
    priority: z.number().optional(),
    lastModified: z.string().optional(),
  })
  .catchall(z.unknown())
  .openapi('McpContentAnnotations');

const common = { annotations: ContentAnnotationsSchema.optional(), _meta: JsonObjectSchema.optional() };

const TextContent = z.object({ type: z.literal('text'), text: z.string(), ...common }).openapi('McpTextContent');
const ImageContent = z
  .object({ type: z.literal('image'), data: z.string().openapi({ description: 'base64' }), mimeType: z.string(), ...common })
  .openapi('McpImageContent');
const AudioContent = z
  .object({ type: z.literal('audio'), data: z.string().openapi({ description: 'base64' }), mimeType: z.string(), ...common })
  .openapi('McpAudioContent');
const ResourceLink = z
  .object({
    type: z.literal('resource_link'),
    uri: z.string(),
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    mimeType: z.string().optional(),
    size: z.number().optional(),
    icons: z.array(IconSchema).optional(),
    ...common,
  })
  .openapi('McpResourceLink');
const EmbeddedResource = z
  .object({
    type: z.literal('resource'),
    resource: z.union([
      z.object({ uri: z.string(), mimeType: z.string().optional(), text: z.string(), _meta: JsonObjectSchema.optional() }),
      z.object({ uri: z.string(), mimeType: z.string().optional(), blob: z.string(), _meta: JsonObjectSchema.optional() }),
    ]),
    ...common,
  })
  .openapi('McpEmbeddedResource');

/** MCP's content block union, discriminated by `type`. */
export const ContentItemSchema = z
  .discriminatedUnion('type', [TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource])
  .openapi('McpContent');

export const ToolResultSchema = z
  .object({
    content: z.array(ContentItemSchema),
    structuredContent: JsonObjectSchema.optional().openapi({ description: "Checked against the tool's `outputSchema` when it has one" }),
    isError: z.boolean().optional(),
    _meta: JsonObjectSchema.optional(),
  })
  .openapi('McpToolResult');

/** The content types MCP defines; a tool server answering another is outside the contract. */
export const CONTENT_TYPES: readonly string[] = ['text', 'image', 'audio', 'resource_link', 'resource'];
