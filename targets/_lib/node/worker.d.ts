import type { RequestListener, Server } from 'node:http';
import { Config } from './config';
import { Database, PgModule } from './db';

export declare function onShutdown(name: string, stop: () => Promise<void>): void;
export declare function drainKeepAlive(server: Server): void;
export declare function closeServer(server: Server): Promise<void>;
export declare function runHttpWorker(cfg: Config, opts: {
  name: string;
  pg: PgModule;
  buildHandler: (db: Database | null) => RequestListener;
  timeouts?: Partial<Pick<Server, 'keepAliveTimeout' | 'headersTimeout' | 'requestTimeout'>>;
}): Promise<void>;
