// The application: controllers, the DatabaseService provider (like seed 004's CacheService)
// and the route-level middlewares.
import { DynamicModule, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { json } from 'express';
import { Config } from '@gauntlet/target-kit';
import { ApiController } from './api.controller';
import { CONFIG, DatabaseService } from './database.service';
import { DbController } from './db.controller';
import { DevicesController } from './devices.controller';
import { HealthController } from './health.controller';
import { HealthTimingMiddleware } from './health-timing.middleware';

@Module({})
export class AppModule implements NestModule {
  static register(cfg: Config): DynamicModule {
    return {
      module: AppModule,
      controllers: [ApiController, DevicesController, HealthController, DbController],
      providers: [{ provide: CONFIG, useValue: cfg }, DatabaseService],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HealthTimingMiddleware).forRoutes({ path: 'health', method: RequestMethod.GET });
    // Nest's global body parsers are off (main: bodyParser: false): only the command route
    // reads a body, as in the Express target.
    consumer.apply(json({ limit: '64kb' })).forRoutes({ path: 'devices/:id/command', method: RequestMethod.POST });
  }
}
