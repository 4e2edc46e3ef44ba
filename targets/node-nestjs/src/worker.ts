// One cluster worker: its own Nest application (and so its own pg pool) on the shared port.
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Config, drainKeepAlive, onShutdown } from '@gauntlet/target-kit';
import { AppModule } from './app.module';
import { SERVER_NAME } from './contract';
import { ContractErrorFilter } from './contract-error.filter';

export async function runWorker(cfg: Config): Promise<void> {
  let app: NestExpressApplication | null = null;
  // SIGTERM: stop accepting, finish in-flight requests; Nest then calls the providers'
  // shutdown hooks (the pool closes), and the worker exits 0.
  onShutdown(SERVER_NAME, async () => {
    if (app !== null) {
      drainKeepAlive(app.getHttpServer());
      await app.close();
    }
  });

  // Production settings: no logger, no abort on a startup error (it is thrown and reported),
  // body parsing on the command route only (AppModule.configure).
  app = await NestFactory.create<NestExpressApplication>(AppModule.register(cfg), {
    logger: false,
    abortOnError: false,
    bodyParser: false,
  });
  // No framework banner, and no ETag hashing of every body (no other target computes one).
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use((req: unknown, res: { setHeader(k: string, v: string): void }, next: () => void) => {
    res.setHeader('Server', SERVER_NAME);
    next();
  });
  app.useGlobalFilters(new ContractErrorFilter());
  await app.listen(cfg.port, cfg.host);
}
