// The one error shape of the reference server (a "not shown" item, spec 7):
// {"status": <http status>, "error": "<code>", "message": "<one line>"}.
export const ERROR_CODES = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  422: 'unprocessable_entity',
  429: 'too_many_requests',
  500: 'internal_error',
} as const;

export class HttpError extends Error {
  readonly status: number;
  /** Headers the error answer carries (Retry-After of a 429). */
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

export function errorBody(status: number, message: string) {
  const code = (ERROR_CODES as Record<number, string>)[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
  return { status, error: code, message: message.split('\n')[0] };
}

export const notFound = (what: string, id: string) => new HttpError(404, `${what} ${JSON.stringify(id)} not found`);
export const conflict = (message: string) => new HttpError(409, message);
export const badRequest = (message: string) => new HttpError(400, message);
