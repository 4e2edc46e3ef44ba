'use strict';
// One cluster worker: its own pg pool and Express app on the shared port, served by node:http.
const pg = require('pg');
const { runHttpWorker } = require('@gauntlet/target-kit');
const { buildApp } = require('./app');
const { SERVER_NAME } = require('./contract');

// node:http's three timeouts off, as Express's TechEmpower app runs: the keep-alive timer is
// otherwise re-armed after every response, and the headers/request deadlines are swept every
// 30 s per connection (target.yaml has what this buys and costs).
const TIMEOUTS = { keepAliveTimeout: 0, headersTimeout: 0, requestTimeout: 0 };

function runWorker(cfg) {
  return runHttpWorker(cfg, { name: SERVER_NAME, pg, buildHandler: buildApp, timeouts: TIMEOUTS });
}

module.exports = { runWorker };
