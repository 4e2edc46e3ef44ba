'use strict';
// Entry point of the node-fastify target: `node main.js`. The primary checks the environment and
// forks the workers (@gauntlet/target-kit); each worker serves the contract with worker.js.
const { start } = require('@gauntlet/target-kit');
const { SERVER_NAME } = require('./contract');

start(SERVER_NAME, () => require('./worker').runWorker);
