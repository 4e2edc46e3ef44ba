'use strict';
// Express at its public ceiling for the contract's ping, configured as the TechEmpower Express
// app is: no X-Powered-By, no ETag, the body written with a schema-compiled serializer
// (fast-json-stringify) through writeHead/end, and node:http's three server timeouts set to 0
// (no keep-alive timer re-armed per request, no periodic request/headers timeout sweep).
// One process: the server runs where it starts.
const http = require('node:http');
const express = require('express');
const fjs = require('fast-json-stringify');

const serialize = fjs({
  type: 'object',
  properties: { ok: { type: 'boolean' }, message: { type: 'string' } },
});

const app = express();
app.set('x-powered-by', false);
app.set('etag', false);

app.get('/api/ping', (req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(serialize({ ok: true, message: 'OK' }));
});

const server = http.createServer(app);
server.keepAliveTimeout = 0;
server.headersTimeout = 0;
server.requestTimeout = 0;
server.listen(Number(process.env.PORT), '127.0.0.1');
