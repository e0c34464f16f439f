// Error shaping: every error the server answers, the framework's own included, leaves through one
// function: the reference's one error shape (errors.ts), with the error layer's changes applied
// (layers/errors.ts). The plugin sets the error handler that route errors and schema violations reach.
import type { FastifyError, FastifyReply } from 'fastify';
import { errorBody, HttpError } from '../errors.ts';
import type { ErrorChange, ErrorView } from '../layers/types.ts';
import { atRoot } from './root.ts';

export interface ErrorSource {
  /** From the error handler (a route's error or a schema violation). */
  fromHandler?: boolean;
  validation?: { instancePath: string; message?: string }[];
  headers?: Record<string, string>;
}

/** Answers an error: `status` and `message` as the error layer leaves them. */
export type SendError = (reply: FastifyReply, status: number, message: string, source?: ErrorSource) => void;

export function errorSender(changes: readonly ErrorChange[]): SendError {
  return (reply, status, message, source = {}) => {
    const e: ErrorView = { status, message, fromHandler: source.fromHandler ?? false, validation: source.validation };
    for (const c of changes) c.transform(e);
    for (const [name, value] of Object.entries(source.headers ?? {})) reply.header(name, value);
    if (e.contentType) reply.type(e.contentType);
    reply.code(e.status).send(e.body ?? errorBody(e.status, e.message));
  };
}

export const errorHandling = atRoot<{ send: SendError }>((app, { send }, done) => {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    let status: number = err instanceof HttpError ? err.status : typeof err.statusCode === 'number' ? err.statusCode : 500;
    let message: string = err.message ?? 'error';
    if (err.validation) {
      status = 400;
      message = `invalid ${err.validationContext ?? 'request'}: ${err.validation.map((v) => `${v.instancePath || '/'} ${v.message}`).join('; ')}`;
    }
    if (status < 400 || status > 599) status = 500;
    // What went wrong inside stays in the log; the client gets no stack or internal detail.
    if (status >= 500) {
      req.log.error({ err }, 'unexpected error');
      message = 'internal error';
    }
    send(reply, status, message, { fromHandler: true, validation: err.validation, headers: err instanceof HttpError ? err.headers : undefined });
  });
  done();
});
