'use strict';
// The contract's framework-free pieces (@gauntlet/target-kit, shared by every node-* target)
// and this target's names.
module.exports = {
  ...require('@gauntlet/target-kit/contract'),
  SERVER_NAME: 'node-express', // the Server header: which target answered
  FRAMEWORK: 'Express', // /health's framework field
};
