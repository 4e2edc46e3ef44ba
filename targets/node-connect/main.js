'use strict';
// Entry point of the node-connect target: `node main.js`. The primary checks the
// environment and forks the workers; each worker serves the contract (targets/CONTRACT.md).
process.env.NODE_ENV = process.env.NODE_ENV || 'production';
const cluster = require('node:cluster');
const { loadConfig } = require('./config');
const { SERVER_NAME } = require('./contract');

let cfg;
try {
  cfg = loadConfig(process.env);
} catch (err) {
  console.error(`${SERVER_NAME}: ${err.message}`);
  process.exit(1);
}

if (cluster.isPrimary) {
  require('./primary').runPrimary(cfg, SERVER_NAME);
} else {
  require('./worker').runWorker(cfg).catch((err) => {
    console.error(`${SERVER_NAME}: worker ${process.pid}: ${err.message}`);
    process.exit(1);
  });
}
