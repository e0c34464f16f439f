// k6 gives scripts a console (log, info, warn, error, debug) but @types/k6 does not declare it, and the
// DOM library that would is not k6's runtime.
declare global {
  interface K6Console {
    log(...args: unknown[]): void;
    info(...args: unknown[]): void;
    warn(...args: unknown[]): void;
    error(...args: unknown[]): void;
    debug(...args: unknown[]): void;
  }
  var console: K6Console;
}

export {};
