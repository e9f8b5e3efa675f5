/**
 * `agent-gateway templates set|get|list`: the agent's prompt templates, checked with
 * the route's own schemas (src/settings/schemas.ts) before anything is sent. A template is the
 * user's text: `get` prints it unchanged.
 */
import { readFile, stat } from 'node:fs/promises';
import { GatewayError } from '../client/errors';
import type { PromptTemplate, PromptTemplateSummary } from '../client/types';
import { PromptTemplateInputSchema, TemplateKeySchema } from '../settings/schemas';
import { type Command, stringValue } from './command';
import { CliError, type Io, UsageError } from './output';
import { gatewayFailure, type GlobalValues, openAgent } from './session';

const NEEDS =
  "Needs the owner's login (agent-gateway login; an agent key cannot read or set templates) and the agent (--collection, --token-id).";

/** A template is at most 65,536 characters: at most 4 bytes each in UTF-8. */
const MAX_TEMPLATE_BYTES = 4 * 65_536;

function checkedKey(key: string): string {
  const checked = TemplateKeySchema.safeParse(key);
  if (!checked.success)
    throw new UsageError(`KEY ${JSON.stringify(key.slice(0, 140))}: ${checked.error.issues[0]?.message ?? 'not a key'}`);
  return checked.data;
}

function utf8(bytes: Uint8Array, from: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${from} is not UTF-8 text`);
  }
}

/** The text from --text, --file FILE, or stdin (--file - or a pipe). */
async function templateText(values: Record<string, unknown>, io: Io): Promise<string> {
  const text = typeof values.text === 'string' ? values.text : undefined;
  const file = typeof values.file === 'string' ? values.file : undefined;
  if (text !== undefined && file !== undefined) throw new UsageError('--text and --file exclude each other');
  if (text !== undefined) return text;
  if (file !== undefined && file !== '-') {
    const size = (await stat(file).catch(() => undefined))?.size;
    if (size === undefined) throw new UsageError(`--file ${file}: no such file`);
    if (size > MAX_TEMPLATE_BYTES) throw new UsageError(`--file ${file}: ${size} bytes, more than a template holds`);
    return utf8(await readFile(file), file);
  }
  if (io.stdin.isTTY) throw new UsageError('give the template with --file FILE, --text TEXT, or on stdin (a pipe, or --file -)');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_TEMPLATE_BYTES) throw new UsageError('stdin holds more than a template holds');
    chunks.push(buffer);
  }
  return utf8(Buffer.concat(chunks), 'stdin');
}

export const templatesSetCommand: Command = {
  path: ['templates', 'set'],
  usage: 'agent-gateway templates set KEY [--file FILE | --text TEXT] [--description TEXT | --no-description] [--json]',
  help: `Creates or replaces the prompt template KEY (1..128 of A-Z a-z 0-9 . _ - : @): the text from
--file, --text or stdin, unchanged (up to 65,536 characters; {{name}} marks a variable a reply fills in).
The description is kept unless --description or --no-description is given.

Options:
  --file FILE          the template's text from FILE (- for stdin); default: stdin when it is a pipe
  --text TEXT          the template's text
  --description TEXT   what the template is for (up to 1,024 characters)
  --no-description     remove the description
  --json               the saved template as JSON

${NEEDS}`,
  options: {
    file: { type: 'string' },
    text: { type: 'string' },
    description: { type: 'string' },
    'no-description': { type: 'boolean' },
    json: { type: 'boolean' },
  },
  args: { min: 1, max: 1 },
  async run({ values, args, env, io }) {
    const key = checkedKey(args[0]!);
    const description = stringValue(values, 'description');
    if (description !== undefined && values['no-description'] === true)
      throw new UsageError('--description and --no-description exclude each other');
    const template = await templateText(values, io);
    const given = PromptTemplateInputSchema.safeParse({ template, ...(description === undefined ? {} : { description }) });
    if (!given.success) {
      const issue = given.error.issues[0]!;
      throw new UsageError(`${issue.path[0] === 'description' ? '--description' : 'the template'}: ${issue.message}`);
    }
    const { agent } = await openAgent(values as GlobalValues, env, io, { agentKey: false });
    let kept: string | null = null;
    if (description === undefined && values['no-description'] !== true) {
      try {
        kept = (await agent.getPromptTemplate(key)).description;
      } catch (err) {
        if (!(err instanceof GatewayError && err.code === 'prompt_template_not_found')) gatewayFailure(err, `reading template ${key}`);
      }
    }
    let saved: PromptTemplate;
    try {
      saved = await agent.savePromptTemplate(key, { template, description: description ?? kept });
    } catch (err) {
      gatewayFailure(err, `setting template ${key}`);
    }
    if (values.json === true) io.out(JSON.stringify(saved, null, 2));
    io.err(`templates set: ${saved.key}, ${[...saved.template].length} characters${saved.description ? ` (${saved.description})` : ''}`);
    return 0;
  },
};

export const templatesGetCommand: Command = {
  path: ['templates', 'get'],
  usage: 'agent-gateway templates get KEY [--json]',
  help: `Prints the prompt template KEY's text, unchanged (a line break added only when it has none at
its end), so templates get KEY > FILE and templates set KEY --file FILE round-trip.

Options:
  --json   the template as JSON: {"key", "template", "description", "updatedAt"}

${NEEDS}`,
  options: { json: { type: 'boolean' } },
  args: { min: 1, max: 1 },
  async run({ values, args, env, io }) {
    const key = checkedKey(args[0]!);
    const { agent } = await openAgent(values as GlobalValues, env, io, { agentKey: false });
    let template: PromptTemplate;
    try {
      template = await agent.getPromptTemplate(key);
    } catch (err) {
      if (err instanceof GatewayError && err.code === 'prompt_template_not_found') {
        throw new CliError(
          `template ${key}: 404 prompt_template_not_found: the agent has no template ${key} (templates list shows those it has)`,
        );
      }
      gatewayFailure(err, `reading template ${key}`);
    }
    // The user's text, as stored: unscrubbed, like messages export.
    if (values.json === true) io.out(JSON.stringify(template, null, 2));
    else io.rawOut(template.template.endsWith('\n') ? template.template : `${template.template}\n`);
    return 0;
  },
};

export const templatesListCommand: Command = {
  path: ['templates', 'list'],
  usage: 'agent-gateway templates list [--json]',
  help: `Lists the agent's prompt templates in byte order of their keys: key, length in characters,
last change and description (not the texts: templates get KEY prints one).

Options:
  --json   the templates as a JSON array of {"key", "description", "characters", "updatedAt"}

${NEEDS}`,
  options: { json: { type: 'boolean' } },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const { agent } = await openAgent(values as GlobalValues, env, io, { agentKey: false });
    const templates: PromptTemplateSummary[] = [];
    try {
      for await (const template of agent.promptTemplates()) templates.push(template);
    } catch (err) {
      gatewayFailure(err, 'listing templates');
    }
    if (values.json === true) {
      io.out(JSON.stringify(templates, null, 2));
      return 0;
    }
    for (const t of templates) io.out([t.key, String(t.characters), t.updatedAt, t.description ?? ''].join('\t'));
    io.err(`templates list: ${templates.length} templates (key, characters, updated, description)`);
    return 0;
  },
};
