// Entry point of the node-nestjs target: `node .build/dist/main.js` (compiled by tsc). The
// primary checks the environment and forks the workers; each worker serves the contract.
import 'reflect-metadata';
import cluster from 'node:cluster';
import { loadConfig, Config } from './config';
import { SERVER_NAME } from './contract';

process.env.NODE_ENV = process.env.NODE_ENV || 'production';

let cfg: Config;
try {
  cfg = loadConfig(process.env);
} catch (err) {
  console.error(`${SERVER_NAME}: ${(err as Error).message}`);
  process.exit(1);
}

// Loaded on demand, so the primary never loads Nest and stays small.
if (cluster.isPrimary) {
  require('./primary').runPrimary(cfg, SERVER_NAME);
} else {
  require('./worker').runWorker(cfg).catch((err: Error) => {
    console.error(`${SERVER_NAME}: worker ${process.pid}: ${err.message}`);
    process.exit(1);
  });
}
