import { createApp } from './app';

/** The Worker entry: one app per isolate; configuration is parsed on the first request. */
export default createApp();
