// Seed 004's middleware, applied to /health only (AppModule.configure): X-Request-ID, and
// X-Response-Time from the response-time middleware (stamped as the headers leave).
import { Injectable, NestMiddleware } from '@nestjs/common';
import { NextFunction, Request, Response } from 'express';
import responseTime from 'response-time';
import { nextRequestId } from './contract';

@Injectable()
export class HealthTimingMiddleware implements NestMiddleware {
  private readonly timing = responseTime({ digits: 2 });

  use(req: Request, res: Response, next: NextFunction): void {
    res.setHeader('X-Request-ID', nextRequestId());
    this.timing(req, res, next);
  }
}
