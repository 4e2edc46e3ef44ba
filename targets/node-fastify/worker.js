'use strict';
// One cluster worker: its own pg pool and Fastify instance on the shared port.
const pg = require('pg');
const { onShutdown, openDatabase } = require('@gauntlet/target-kit');
const { buildApp } = require('./app');
const { SERVER_NAME } = require('./contract');

async function runWorker(cfg) {
  let app = null;
  // SIGTERM: stop accepting, finish in-flight requests, close the pool (onClose), exit 0.
  onShutdown(SERVER_NAME, async () => {
    if (app !== null) await app.close();
  });

  const db = await openDatabase(pg, cfg);
  app = buildApp(db);
  app.addHook('onClose', async () => {
    if (db !== null) await db.end();
  });
  await app.listen({ port: cfg.port, host: cfg.host });
}

module.exports = { runWorker };
