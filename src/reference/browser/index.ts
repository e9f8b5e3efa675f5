/**
 * The functions that make up the /docs page script, serialized by src/reference/script.ts. Every
 * function the page calls must be listed here; `docsMain` is the entry.
 */
import { appendKids, byId, codeBlock, errorText, h, isObj, md, pathText, show } from './dom';
import { bearerSchemes, bindCredential, credentialKey, initCredentials, initTheme, readCredential, schemeLabel } from './credentials';
import { eventItem, eventList, parseEvents, readEventStream, streamExample, streamMedia } from './events';
import { applySearch, docsMain, failPage, initSearch, revealOperation, sampleBaseUrl } from './main';
import { collectOperations, matchesSearch, tagDescription, tagOrder } from './operations';
import { lock, methodBadge, paramsTable, renderOperation, responseList, tabs } from './render';
import { clientSample, curlSample, literal, paramExample, sampleInput, shellQuote } from './samples';
import { deref, facts, jsonMedia, mediaExample, pointer, refName, sample, schemaTree, typeLabel } from './schema';
import { choice, send, tryPanel } from './try-it';

export const entry: () => Promise<void> = docsMain;

export const functions: readonly ((...args: never[]) => unknown)[] = [
  appendKids,
  byId,
  codeBlock,
  errorText,
  h,
  isObj,
  md,
  pathText,
  show,
  bearerSchemes,
  bindCredential,
  credentialKey,
  initCredentials,
  initTheme,
  readCredential,
  schemeLabel,
  eventItem,
  eventList,
  parseEvents,
  readEventStream,
  streamExample,
  streamMedia,
  applySearch,
  revealOperation,
  docsMain,
  failPage,
  initSearch,
  sampleBaseUrl,
  collectOperations,
  matchesSearch,
  tagDescription,
  tagOrder,
  lock,
  methodBadge,
  paramsTable,
  renderOperation,
  responseList,
  tabs,
  clientSample,
  curlSample,
  literal,
  paramExample,
  sampleInput,
  shellQuote,
  deref,
  facts,
  jsonMedia,
  mediaExample,
  pointer,
  refName,
  sample,
  schemaTree,
  typeLabel,
  choice,
  send,
  tryPanel,
];
