/** See browser-app.js: the /docs page's browser functions, to be serialized into the page. */
export declare const entry: () => Promise<void>;
export declare const functions: readonly ((...args: never[]) => unknown)[];
