'use strict';
// The contract's routes on Fastify 5: fixed bodies go out pre-serialized (seed 001's Node
// service), the others through response schemas, Fastify's documented fast JSON path.
const { setTimeout: sleep } = require('node:timers/promises');
const fastify = require('fastify');
const c = require('./contract');

const MAX_COMMAND_BODY = 64 * 1024;

const schemas = {
  time: { type: 'object', properties: { serverTime: { type: 'integer' } } },
  command: {
    type: 'object',
    properties: {
      deviceId: { type: 'integer' }, action: { type: 'string' },
      status: { type: 'string' }, latencyMs: { type: 'integer' },
    },
  },
  event: {
    type: 'object',
    properties: { event: { type: 'string' }, deviceId: { type: 'integer' }, ts: { type: 'integer' } },
  },
  health: {
    type: 'object',
    properties: { status: { type: 'string' }, timestamp: { type: 'integer' }, framework: { type: 'string' } },
  },
  document: {
    type: 'object',
    properties: {
      id: { type: 'integer' }, queue: { type: 'string' }, sender: { type: 'string' },
      subject: { type: 'string' }, body: { type: 'string' },
      created_at: { type: 'integer' }, ttl: { type: 'integer' },
    },
  },
  items: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        id: { type: 'integer' }, name: { type: 'string' }, category: { type: 'string' },
        price_cents: { type: 'integer' }, in_stock: { type: 'boolean' }, updated_at: { type: 'integer' },
      },
    },
  },
  primes: { type: 'array', items: { type: 'integer' } },
};

const ok = (schema) => ({ response: { 200: schema } });

function fail(reply, status, reason) {
  return reply.code(status).send({ error: reason });
}

function raw(reply, body) {
  return reply.type(c.JSON_TYPE).send(body);
}

// Seed 004's middleware, as Fastify route hooks on /health only: the ID goes on at the start,
// the elapsed time just before the headers are written.
const healthTiming = {
  onRequest(req, reply, done) {
    req.startedAt = process.hrtime.bigint();
    reply.header('x-request-id', c.nextRequestId());
    done();
  },
  onSend(req, reply, payload, done) {
    reply.header('x-response-time', c.responseTime(req.startedAt));
    done(null, payload);
  },
};

function buildApp(db) {
  const app = fastify({ logger: false, bodyLimit: MAX_COMMAND_BODY });
  app.decorateRequest('startedAt', 0n);

  app.addHook('onRequest', (req, reply, done) => {
    reply.header('server', c.SERVER_NAME);
    done();
  });

  app.get('/api/ping', (req, reply) => raw(reply, c.PING_BODY));
  app.get('/healthz', (req, reply) => raw(reply, c.HEALTHZ_BODY));
  app.get('/devices/status', (req, reply) => raw(reply, c.DEVICES_BODY));
  app.get('/api/time', { schema: ok(schemas.time) }, () => ({ serverTime: Math.floor(Date.now() / 1000) }));

  app.post('/devices/:id/command', { schema: ok(schemas.command) }, async (req, reply) => {
    const id = c.parseUint(req.params.id);
    if (!(id >= 1 && id !== Infinity)) return fail(reply, 400, 'device id must be a positive integer below 2^53');
    const reason = c.commandError(req.body);
    if (reason) return fail(reply, 400, reason);
    await sleep(c.COMMAND_LATENCY_MS);
    return { deviceId: id, action: req.body.action, status: 'accepted', latencyMs: c.COMMAND_LATENCY_MS };
  });

  app.get('/events/live', { schema: ok(schemas.event) }, async (req, reply) => {
    const wait = c.waitMs(c.firstValue(req.query.wait));
    if (wait === null) return fail(reply, 400, 'wait must be a non-negative integer');
    if (wait > 0) await sleep(wait);
    return { event: 'motion', deviceId: 5, ts: Date.now() };
  });

  app.get('/health', { schema: ok(schemas.health), ...healthTiming }, () => (
    { status: 'ok', timestamp: Date.now(), framework: c.FRAMEWORK }
  ));

  app.get('/api/cpu/primes', { schema: ok(schemas.primes) }, (req, reply) => {
    const given = c.firstValue(req.query.n);
    const n = given === undefined ? 1000000 : c.parseUint(given);
    if (!(n >= 2 && n <= c.MAX_PRIMES_N)) return fail(reply, 400, 'n must be an integer in 2..10000000');
    return reply.send(c.primesBelow(n));
  });

  registerDatabaseRoutes(app, db);

  app.setNotFoundHandler((req, reply) => reply.code(404).type(c.JSON_TYPE).send(c.NOT_FOUND_BODY));
  app.setErrorHandler((err, req, reply) => {
    const status = err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 415) {
      // Fastify rejects a body that is not JSON with 415; the contract's rule for it is 400.
      return fail(reply, 400, c.commandError(undefined));
    }
    return fail(reply, status, status === 500 ? `internal error: ${err.message}` : err.message);
  });
  return app;
}

function registerDatabaseRoutes(app, db) {
  // Without DATABASE_URL the routes exist but answer 503, so a misconfiguration is visible.
  const withDb = (handler) => async (req, reply) => {
    if (db === null) return fail(reply, 503, 'database not configured (DATABASE_URL is unset)');
    try {
      return await handler(req, reply);
    } catch (err) {
      return fail(reply, 500, `database error: ${err.message}`);
    }
  };

  app.get('/api/db/ping', withDb(async (req, reply) => raw(reply, await db.ping())));
  app.get('/api/db/time', withDb(async (req, reply) => raw(reply, await db.time())));

  app.get('/api/db/document/:id', { schema: ok(schemas.document) }, withDb(async (req, reply) => {
    const id = c.parseUint(req.params.id);
    if (!(id >= 1)) return fail(reply, 400, 'document id must be a positive integer');
    const row = id > c.MAX_INT4 ? undefined : await db.document(id);
    return row === undefined ? fail(reply, 404, `no document with id ${req.params.id}`) : row;
  }));

  app.get('/api/db/documents', { schema: ok(schemas.items) }, withDb(async (req, reply) => {
    const given = c.firstValue(req.query.limit);
    const limit = given === undefined ? 10 : c.parseUint(given);
    if (!(limit >= 1 && limit <= 100)) return fail(reply, 400, 'limit must be an integer in 1..100');
    return db.documents(limit);
  }));
}

module.exports = { buildApp };
