'use strict';
// The contract's routes on Express 5: res.json for objects, fixed bodies pre-serialized.
const express = require('express');
const responseTime = require('response-time');
const { setTimeout: sleep } = require('node:timers/promises');
const c = require('./contract');

function fail(res, status, reason) {
  return res.status(status).json({ error: reason });
}

function raw(res, body) {
  return res.set('Content-Type', c.JSON_TYPE).send(body);
}

// Seed 004's middleware, on /health only: X-Request-ID, and X-Response-Time from Express's
// own response-time middleware (stamped as the headers leave).
const healthTiming = [
  (req, res, next) => {
    res.setHeader('X-Request-ID', c.nextRequestId());
    next();
  },
  responseTime({ digits: 2 }),
];

function buildApp(db) {
  const app = express();
  // Production settings: no framework banner, and no ETag hashing of every body (no other
  // target computes one; on the 538 KB primes body it would be measurable work).
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use((req, res, next) => {
    res.setHeader('Server', c.SERVER_NAME);
    next();
  });

  app.get('/api/ping', (req, res) => raw(res, c.PING_BODY));
  app.get('/healthz', (req, res) => raw(res, c.HEALTHZ_BODY));
  app.get('/devices/status', (req, res) => raw(res, c.DEVICES_BODY));
  app.get('/api/time', (req, res) => res.json({ serverTime: Math.floor(Date.now() / 1000) }));

  // The JSON body parser runs on this route only: no other route reads a body.
  app.post('/devices/:id/command', express.json({ limit: '64kb' }), async (req, res) => {
    const id = c.parseUint(req.params.id);
    if (!(id >= 1 && id !== Infinity)) return fail(res, 400, 'device id must be a positive integer below 2^53');
    const reason = c.commandError(req.body);
    if (reason) return fail(res, 400, reason);
    await sleep(c.COMMAND_LATENCY_MS);
    return res.json({ deviceId: id, action: req.body.action, status: 'accepted', latencyMs: c.COMMAND_LATENCY_MS });
  });

  app.get('/events/live', async (req, res) => {
    const wait = c.waitMs(c.firstValue(req.query.wait));
    if (wait === null) return fail(res, 400, 'wait must be a non-negative integer');
    if (wait > 0) await sleep(wait);
    return res.json({ event: 'motion', deviceId: 5, ts: Date.now() });
  });

  app.get('/health', healthTiming, (req, res) => (
    res.json({ status: 'ok', timestamp: Date.now(), framework: c.FRAMEWORK })
  ));

  app.get('/api/cpu/primes', (req, res) => {
    const n = req.query.n === undefined ? 1000000 : c.parseUint(c.firstValue(req.query.n));
    if (!(n >= 2 && n <= c.MAX_PRIMES_N)) return fail(res, 400, 'n must be an integer in 2..10000000');
    return res.json(c.primesBelow(n));
  });

  app.use('/api/db', databaseRouter(db));

  app.use((req, res) => res.status(404).set('Content-Type', c.JSON_TYPE).send(c.NOT_FOUND_BODY));
  // Express 5 routes rejected promises here too; body-parser's errors carry their status.
  app.use((err, req, res, next) => {
    if (res.headersSent) return next(err);
    const status = err.status >= 400 && err.status < 500 ? err.status : 500;
    if (err.type === 'entity.parse.failed') return fail(res, 400, 'body is not valid JSON');
    return fail(res, status, status === 500 ? `internal error: ${err.message}` : err.message);
  });
  return app;
}

function databaseRouter(db) {
  const router = express.Router();
  // Without DATABASE_URL the routes exist but answer 503, so a misconfiguration is visible.
  const guarded = (handler) => async (req, res) => {
    if (db === null) return fail(res, 503, 'database not configured (DATABASE_URL is unset)');
    try {
      return await handler(req, res);
    } catch (err) {
      return fail(res, 500, `database error: ${err.message}`);
    }
  };

  router.get('/ping', guarded(async (req, res) => raw(res, await db.ping())));
  router.get('/time', guarded(async (req, res) => raw(res, await db.time())));

  router.get('/document/:id', guarded(async (req, res) => {
    const id = c.parseUint(req.params.id);
    if (!(id >= 1)) return fail(res, 400, 'document id must be a positive integer');
    const row = id > c.MAX_INT4 ? undefined : await db.document(id);
    return row === undefined ? fail(res, 404, `no document with id ${req.params.id}`) : res.json(row);
  }));

  router.get('/documents', guarded(async (req, res) => {
    const limit = req.query.limit === undefined ? 10 : c.parseUint(c.firstValue(req.query.limit));
    if (!(limit >= 1 && limit <= 100)) return fail(res, 400, 'limit must be an integer in 1..100');
    return res.json(await db.documents(limit));
  }));
  return router;
}

module.exports = { buildApp };
