'use strict';
// @gauntlet/target-kit: the framework-free pieces of the node-* targets. Routes, schemas,
// middleware and controllers stay in each target's folder, written the framework's way.
module.exports = {
  ...require('./contract'),
  ...require('./config'),
  ...require('./db'),
  ...require('./cluster'),
  ...require('./worker'),
};
