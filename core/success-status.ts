// What counts as an operation's success (spec 4.0), for the suite and the load profiles alike.

/**
 * Whether `status` is a success of an operation whose spec shows `shown` as its success: exactly 200
 * where the spec shows 200, any 2xx where it shows only "a success response".
 */
export function isSuccessStatus(shown: string, status: number): boolean {
  return shown === '200' ? status === 200 : status >= 200 && status < 300;
}
