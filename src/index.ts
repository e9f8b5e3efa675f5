import { createApp } from './app';
import type { Env } from './env';
import { scheduled } from './maintenance/scheduled';

const app = createApp();

/**
 * The Worker entry: one app per isolate (configuration is parsed on the first request), and the
 * Cron Trigger's clean-up.
 */
export default {
  fetch: app.fetch,
  scheduled,
} satisfies ExportedHandler<Env>;
