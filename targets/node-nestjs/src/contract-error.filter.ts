// Every error answers {"error":"<reason>"} as the contract asks, instead of Nest's
// {"statusCode":...,"message":...} shape.
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus } from '@nestjs/common';
import { Response } from 'express';
import { JSON_TYPE, NOT_FOUND_BODY } from './contract';

// ContractError is thrown by the controllers with the reason to send.
export class ContractError extends HttpException {
  constructor(status: HttpStatus, readonly reason: string) {
    super(reason, status);
  }
}

@Catch()
export class ContractErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    if (exception instanceof ContractError) {
      res.status(exception.getStatus()).json({ error: exception.reason });
    } else if (exception instanceof HttpException && exception.getStatus() === HttpStatus.NOT_FOUND) {
      // Nest's own 404: no route matched.
      res.status(HttpStatus.NOT_FOUND).type(JSON_TYPE).send(NOT_FOUND_BODY);
    } else if (exception instanceof HttpException) {
      res.status(exception.getStatus()).json({ error: exception.message });
    } else {
      // Nest turns body-parser's JSON errors into a 400 HttpException; the others (413 too
      // large) arrive as they are, with their status.
      const err = exception as { status?: number; message?: string };
      if (err.status !== undefined && err.status >= 400 && err.status < 500) {
        res.status(err.status).json({ error: err.message });
      } else {
        res.status(HttpStatus.INTERNAL_SERVER_ERROR).json({ error: `internal error: ${err.message}` });
      }
    }
  }
}
