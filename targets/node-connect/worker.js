'use strict';
// One cluster worker: its own pg pool and Connect app on the shared port.
const http = require('node:http');
const { openDatabase } = require('./db');
const { buildApp } = require('./app');
const { SERVER_NAME } = require('./contract');

const FORCE_CLOSE_MS = 8000; // in-flight requests get this long; the contract allows 10 s

async function runWorker(cfg) {
  let server = null;
  let db = null;
  let stopping = false;
  // SIGTERM: stop accepting, finish in-flight requests, close the pool, exit 0.
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    try {
      if (server !== null) await closeServer(server);
      if (db !== null) await db.end();
      process.exit(0);
    } catch (err) {
      console.error(`${SERVER_NAME}: shutdown: ${err.message}`);
      process.exit(1);
    }
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  db = await openDatabase(cfg);
  server = http.createServer(buildApp(db));
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(cfg.port, '0.0.0.0', resolve);
  });
}

// closeServer stops accepting, lets busy keep-alive connections finish their request and
// then closes them; stragglers are cut at FORCE_CLOSE_MS.
function closeServer(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // A request arriving on a kept-alive connection during shutdown is answered, then the
    // connection closes (Connection: close) instead of waiting for its idle timeout.
    server.prependListener('request', (req, res) => res.setHeader('Connection', 'close'));
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), FORCE_CLOSE_MS).unref();
  });
}

module.exports = { runWorker };
