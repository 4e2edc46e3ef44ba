'use strict';
// Fastify's minimal app (its docs' quick start), logger off, answering the contract's ping
// with the body already serialised.
const fastify = require('fastify')({ logger: false });

const BODY = '{"ok":true,"message":"OK"}';

fastify.get('/api/ping', (request, reply) => {
  reply.type('application/json').send(BODY);
});

fastify.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }, (err) => {
  if (err) {
    console.error(err);
    process.exit(1);
  }
});
