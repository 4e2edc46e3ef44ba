// One cluster worker: its own Nest application (and so its own pg pool) on the shared port.
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Server } from 'node:http';
import { AppModule } from './app.module';
import { Config } from './config';
import { SERVER_NAME } from './contract';
import { ContractErrorFilter } from './contract-error.filter';

const FORCE_CLOSE_MS = 8000; // in-flight requests get this long; the contract allows 10 s

export async function runWorker(cfg: Config): Promise<void> {
  let app: NestExpressApplication | null = null;
  let stopping = false;
  // SIGTERM: stop accepting, finish in-flight requests; Nest then calls the providers'
  // shutdown hooks (the pool closes), and the worker exits 0.
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    try {
      if (app !== null) {
        drainKeepAlive(app.getHttpServer());
        await app.close();
      }
      process.exit(0);
    } catch (err) {
      console.error(`${SERVER_NAME}: shutdown: ${(err as Error).message}`);
      process.exit(1);
    }
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

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
  await app.listen(cfg.port, '0.0.0.0');
}

// drainKeepAlive closes idle keep-alive connections now, and each busy one after its
// current response (Connection: close); stragglers are cut at FORCE_CLOSE_MS.
function drainKeepAlive(server: Server): void {
  server.prependListener('request', (req, res) => res.setHeader('Connection', 'close'));
  server.closeIdleConnections();
  setTimeout(() => server.closeAllConnections(), FORCE_CLOSE_MS).unref();
}
