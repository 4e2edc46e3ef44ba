'use strict';
// Seed 004's middleware values: X-Request-ID and X-Response-Time.
const crypto = require('node:crypto');

// Request IDs: a random prefix per process plus a counter, unique across workers and
// restarts without a random read per request.
const idPrefix = `req-${crypto.randomBytes(8).toString('hex')}-`;
let idCounter = 0;
function nextRequestId() {
  idCounter += 1;
  return idPrefix + idCounter;
}

// responseTime formats the time since start (a process.hrtime.bigint()) as "0.12ms", for
// frameworks without a response-time middleware of their own (Fastify's route hooks).
function responseTime(start) {
  return `${(Number(process.hrtime.bigint() - start) / 1e6).toFixed(2)}ms`;
}

module.exports = { nextRequestId, responseTime };
