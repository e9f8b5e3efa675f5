import type { Env } from './env';

type App = ReturnType<typeof import('./app')['createApp']>;

let app: Promise<App> | undefined;

/**
 * The app, built on the first request of an isolate and kept. The module graph behind it (hono,
 * zod, every route's schemas, viem, drizzle) is reached through `import()`, which the bundle turns
 * into modules evaluated on first use, so the isolate's start-up (limit 1 s on Workers, measured
 * by `npm run bench:startup`) only compiles the script; the first request pays the evaluation once.
 */
function theApp(): Promise<App> {
  app ??= import('./app').then(({ createApp }) => createApp());
  // A failed build (never expected: it reads no input) is retried by the next request.
  app.catch(() => {
    app = undefined;
  });
  return app;
}

/**
 * The Worker entry: one app per isolate (configuration is parsed on the first request), and the
 * Cron Trigger's clean-up, each loaded when first called.
 */
export default {
  async fetch(request, env, ctx) {
    return (await theApp()).fetch(request, env, ctx);
  },
  async scheduled(controller, env, ctx) {
    const { scheduled } = await import('./maintenance/scheduled');
    return scheduled(controller, env, ctx);
  },
} satisfies ExportedHandler<Env>;
