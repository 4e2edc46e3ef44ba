// Entry point of the node-nestjs target: `node .build/dist/main.js` (compiled by tsc). The
// primary checks the environment and forks the workers (@gauntlet/target-kit); each worker
// serves the contract with worker.ts.
import 'reflect-metadata';
import { start } from '@gauntlet/target-kit';
import { SERVER_NAME } from './contract';

// Loaded on demand, so the primary never loads Nest and stays small.
start(SERVER_NAME, () => require('./worker').runWorker);
