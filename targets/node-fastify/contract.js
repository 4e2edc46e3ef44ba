'use strict';
// The contract's framework-free pieces (@gauntlet/target-kit, shared by every node-* target)
// and this target's names.
module.exports = {
  ...require('@gauntlet/target-kit/contract'),
  SERVER_NAME: 'node-fastify', // the Server header: which target answered
  FRAMEWORK: 'Fastify', // /health's framework field
};
