/** The ERC-8004 registration file type `GET …/registration.json` serves. */
export const REGISTRATION_TYPE = 'https://eips.ethereum.org/EIPS/eip-8004#registration-v1';
/** The MCP revision the agent's own MCP server is announced at. */
export const MCP_SERVICE_VERSION = '2025-11-25';
/** The A2A protocol version the agent's A2A endpoint speaks, as its registration entry names it. */
export const A2A_SERVICE_VERSION = '1.0';
/** Where an agent's A2A Agent Card is, below the agent's path (A2A's well-known name). */
export const AGENT_CARD_PATH = '.well-known/agent-card.json';

/** Longest profile name, in UTF-16 code units. */
export const MAX_NAME = 100;
/** Longest profile description, in UTF-16 code units. */
export const MAX_DESCRIPTION = 2_000;
/** Longest `https:` image URL. */
export const MAX_IMAGE_URL = 2_048;
/** Longest `data:` image URI, whole (about 12 KiB of image): the file is served to anyone, often. */
export const MAX_IMAGE_DATA_URI = 16_384;

export const IMAGE_RULES = `an https URL (at most ${MAX_IMAGE_URL} characters, no user or password), or a data: URI of a PNG, JPEG, GIF or WebP image in base64 (at most ${MAX_IMAGE_DATA_URI} characters in all).`;

const DATA_URI = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/;

/**
 * True for an image a registration file may show: a plain https URL, or a small base64 data URI of
 * a raster image (no SVG: a reader that renders it would run its scripts).
 */
export function isProfileImage(value: string): boolean {
  if (value.startsWith('data:')) return value.length <= MAX_IMAGE_DATA_URI && DATA_URI.test(value);
  if (value.length > MAX_IMAGE_URL || /\s/.test(value) || CONTROL.test(value)) return false;
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === 'https:' && url.username === '' && url.password === '' && url.hostname !== '';
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const CONTROL = /[\u0000-\u001f\u007f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters but line breaks and tabs are what it refuses
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/**
 * Never in a profile's text, which the public registration file shows as is: C1 controls (U+0085,
 * a line break to some readers, among them), the line and paragraph separators (a line break to
 * JavaScript and others), and the bidi embeddings, overrides and isolates (U+202A..U+202E,
 * U+2066..U+2069), which make a name read as something else.
 */
const HIDDEN_FORMAT = /[\u0080-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * Text a person reads: well-formed, not blank, no control characters (line breaks and tabs when
 * `multiline`: `\n`, `\r`, `\t` only), no line separators and no bidi controls.
 */
export function isPlainText(text: string, multiline: boolean): boolean {
  return text.isWellFormed() && text.trim() !== '' && !(multiline ? CONTROL_BUT_LINES : CONTROL).test(text) && !HIDDEN_FORMAT.test(text);
}
