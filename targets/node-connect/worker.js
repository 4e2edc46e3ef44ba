'use strict';
// One cluster worker: its own pg pool and Connect app on the shared port, served by node:http.
const pg = require('pg');
const { runHttpWorker } = require('@gauntlet/target-kit');
const { buildApp } = require('./app');
const { SERVER_NAME } = require('./contract');

function runWorker(cfg) {
  return runHttpWorker(cfg, { name: SERVER_NAME, pg, buildHandler: buildApp });
}

module.exports = { runWorker };
