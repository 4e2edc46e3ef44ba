// Seed 004's health endpoint (timed by HealthTimingMiddleware) and the readiness probe.
import { Controller, Get, Header } from '@nestjs/common';
import { FRAMEWORK, HEALTHZ_BODY, JSON_TYPE } from './contract';

@Controller()
export class HealthController {
  @Get('health')
  health() {
    return { status: 'ok', timestamp: Date.now(), framework: FRAMEWORK };
  }

  @Get('healthz')
  @Header('Content-Type', JSON_TYPE)
  healthz(): string {
    return HEALTHZ_BODY;
  }
}
