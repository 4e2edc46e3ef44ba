'use strict';
// A cluster worker's lifecycle around node:http: SIGTERM stops accepting, lets in-flight
// requests finish, closes the pool and exits 0 (targets/CONTRACT.md, "Common rules").
const http = require('node:http');
const { openDatabase } = require('./db');

const FORCE_CLOSE_MS = 8000; // in-flight requests get this long; the contract allows 10 s

// onShutdown runs stop once on the first SIGTERM or SIGINT, then exits 0, or 1 when stop
// throws.
function onShutdown(name, stop) {
  let stopping = false;
  const handler = async () => {
    if (stopping) return;
    stopping = true;
    try {
      await stop();
      process.exit(0);
    } catch (err) {
      console.error(`${name}: shutdown: ${err.message}`);
      process.exit(1);
    }
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

// drainKeepAlive closes idle keep-alive connections now, and each busy one after its
// current response (Connection: close); stragglers are cut at FORCE_CLOSE_MS. Call it
// with or just before server.close().
function drainKeepAlive(server) {
  // A request arriving on a kept-alive connection during shutdown is answered, then the
  // connection closes instead of waiting for its idle timeout.
  server.prependListener('request', (req, res) => res.setHeader('Connection', 'close'));
  server.closeIdleConnections();
  setTimeout(() => server.closeAllConnections(), FORCE_CLOSE_MS).unref();
}

// closeServer stops accepting and resolves once every connection has closed.
function closeServer(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    drainKeepAlive(server);
  });
}

// runHttpWorker serves a (req, res) handler, such as an Express or Connect app, on
// cfg.host:cfg.port with node:http. buildHandler receives the worker's Database (or null
// without DATABASE_URL); pg is the target's own pg module (see db.js). timeouts, when given,
// are node:http Server properties set before listening (keepAliveTimeout, headersTimeout,
// requestTimeout): a target states in its target.yaml why it changes node's defaults.
async function runHttpWorker(cfg, { name, pg, buildHandler, timeouts }) {
  let server = null;
  let db = null;
  onShutdown(name, async () => {
    if (server !== null) await closeServer(server);
    if (db !== null) await db.end();
  });

  db = await openDatabase(pg, cfg);
  server = http.createServer(buildHandler(db));
  Object.assign(server, timeouts);
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(cfg.port, cfg.host, resolve);
  });
}

module.exports = { onShutdown, drainKeepAlive, closeServer, runHttpWorker };
