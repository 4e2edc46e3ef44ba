'use strict';
// The contract's routes on Connect 3 (seed 002's framework) with the router of router.js.
const connect = require('connect');
const bodyParser = require('body-parser');
const responseTime = require('response-time');
const { setTimeout: sleep } = require('node:timers/promises');
const { Router } = require('./router');
const c = require('./contract');

// send writes a complete body with its length, so even the primes body is not chunked.
function send(res, status, body) {
  res.statusCode = status;
  res.setHeader('Content-Type', c.JSON_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

const json = (res, value) => send(res, 200, JSON.stringify(value));
const fail = (res, status, reason) => send(res, status, JSON.stringify({ error: reason }));
// query gives a parameter's first value, or undefined when it is absent.
const query = (req, name) => req.query.get(name) ?? undefined;

// Seed 004's middleware, on /health only: X-Request-ID, and X-Response-Time from the
// response-time middleware (Connect's own, stamped as the headers leave).
const healthTiming = [
  (req, res, next) => {
    res.setHeader('X-Request-ID', c.nextRequestId());
    next();
  },
  responseTime({ digits: 2 }),
];

function buildApp(db) {
  const router = new Router();
  router.get('/api/ping', (req, res) => send(res, 200, c.PING_BODY));
  router.get('/healthz', (req, res) => send(res, 200, c.HEALTHZ_BODY));
  router.get('/devices/status', (req, res) => send(res, 200, c.DEVICES_BODY));
  router.get('/api/time', (req, res) => json(res, { serverTime: Math.floor(Date.now() / 1000) }));

  // The JSON body parser runs on this route only: no other route reads a body.
  router.post('/devices/:id/command', bodyParser.json({ limit: '64kb' }), async (req, res) => {
    const id = c.parseUint(req.params.id);
    if (!(id >= 1 && id !== Infinity)) return fail(res, 400, 'device id must be a positive integer below 2^53');
    const reason = c.commandError(req.body);
    if (reason) return fail(res, 400, reason);
    await sleep(c.COMMAND_LATENCY_MS);
    return json(res, { deviceId: id, action: req.body.action, status: 'accepted', latencyMs: c.COMMAND_LATENCY_MS });
  });

  router.get('/events/live', async (req, res) => {
    const wait = c.waitMs(query(req, 'wait'));
    if (wait === null) return fail(res, 400, 'wait must be a non-negative integer');
    if (wait > 0) await sleep(wait);
    return json(res, { event: 'motion', deviceId: 5, ts: Date.now() });
  });

  router.get('/health', ...healthTiming, (req, res) => (
    json(res, { status: 'ok', timestamp: Date.now(), framework: c.FRAMEWORK })
  ));

  router.get('/api/cpu/primes', (req, res) => {
    const raw = query(req, 'n');
    const n = raw === undefined ? 1000000 : c.parseUint(raw);
    if (!(n >= 2 && n <= c.MAX_PRIMES_N)) return fail(res, 400, 'n must be an integer in 2..10000000');
    return json(res, c.primesBelow(n));
  });

  addDatabaseRoutes(router, db);

  const app = connect();
  app.use((req, res, next) => {
    res.setHeader('Server', c.SERVER_NAME);
    next();
  });
  app.use(router.middleware());
  app.use((req, res) => send(res, 404, c.NOT_FOUND_BODY));
  // body-parser's errors carry their status (400, 413); anything else is a 500.
  app.use((err, req, res, next) => {
    if (res.headersSent) return next(err);
    if (err.type === 'entity.parse.failed') return fail(res, 400, 'body is not valid JSON');
    const status = err.status >= 400 && err.status < 500 ? err.status : 500;
    return fail(res, status, status === 500 ? `internal error: ${err.message}` : err.message);
  });
  return app;
}

function addDatabaseRoutes(router, db) {
  // Without DATABASE_URL the routes exist but answer 503, so a misconfiguration is visible.
  const guarded = (handler) => async (req, res) => {
    if (db === null) return fail(res, 503, 'database not configured (DATABASE_URL is unset)');
    try {
      return await handler(req, res);
    } catch (err) {
      return fail(res, 500, `database error: ${err.message}`);
    }
  };

  router.get('/api/db/ping', guarded(async (req, res) => send(res, 200, await db.ping())));
  router.get('/api/db/time', guarded(async (req, res) => send(res, 200, await db.time())));

  router.get('/api/db/document/:id', guarded(async (req, res) => {
    const id = c.parseUint(req.params.id);
    if (!(id >= 1)) return fail(res, 400, 'document id must be a positive integer');
    const row = id > c.MAX_INT4 ? undefined : await db.document(id);
    return row === undefined ? fail(res, 404, `no document with id ${req.params.id}`) : json(res, row);
  }));

  router.get('/api/db/documents', guarded(async (req, res) => {
    const raw = query(req, 'limit');
    const limit = raw === undefined ? 10 : c.parseUint(raw);
    if (!(limit >= 1 && limit <= 100)) return fail(res, 400, 'limit must be an integer in 1..100');
    return json(res, await db.documents(limit));
  }));
}

module.exports = { buildApp };
