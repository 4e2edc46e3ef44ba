'use strict';
// The contract's framework-free pieces (@gauntlet/target-kit, shared by every node-* target)
// and this target's names.
module.exports = {
  ...require('@gauntlet/target-kit/contract'),
  SERVER_NAME: 'node-connect', // the Server header: which target answered
  FRAMEWORK: 'Connect', // /health's framework field
};
