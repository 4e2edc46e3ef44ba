'use strict';
// One cluster worker: its own pg pool and Fastify instance on the shared port.
const { openDatabase } = require('./db');
const { buildApp } = require('./app');
const { SERVER_NAME } = require('./contract');

async function runWorker(cfg) {
  let app = null;
  let stopping = false;
  // SIGTERM: stop accepting, finish in-flight requests, close the pool (onClose), exit 0.
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    try {
      if (app !== null) await app.close();
      process.exit(0);
    } catch (err) {
      console.error(`${SERVER_NAME}: shutdown: ${err.message}`);
      process.exit(1);
    }
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  const db = await openDatabase(cfg);
  app = buildApp(db);
  app.addHook('onClose', async () => {
    if (db !== null) await db.end();
  });
  await app.listen({ port: cfg.port, host: '0.0.0.0' });
}

module.exports = { runWorker };
