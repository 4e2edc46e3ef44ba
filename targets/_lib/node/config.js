'use strict';
// The contract's environment (targets/CONTRACT.md, "Configuration"). Every bad value is an
// error naming the variable, so a typo never starts a server with a silent default.
const net = require('node:net');

function intVar(env, name, def, lo, hi) {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < lo || Number(raw) > hi) {
    throw new Error(`${name} must be an integer in ${lo}..${hi}, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

function hostVar(env) {
  const raw = env.HOST;
  if (raw === undefined || raw === '') return '0.0.0.0';
  if (!net.isIPv4(raw)) throw new Error(`HOST must be an IPv4 address, got ${JSON.stringify(raw)}`);
  return raw;
}

function loadConfig(env) {
  const cfg = {
    host: hostVar(env),
    port: intVar(env, 'PORT', 8080, 1, 65535),
    workers: intVar(env, 'WORKERS', 1, 1, 1024),
    databaseURL: env.DATABASE_URL || '',
    poolMin: intVar(env, 'DB_POOL_MIN', 5, 0, 10000),
    poolMax: intVar(env, 'DB_POOL_MAX', 15, 1, 10000),
  };
  if (cfg.poolMin > cfg.poolMax) {
    throw new Error(`DB_POOL_MIN (${cfg.poolMin}) is greater than DB_POOL_MAX (${cfg.poolMax})`);
  }
  // pg never prepares unnamed statements, so both values behave alike; a third is still a typo.
  const prepared = env.DB_PREPARED || 'on';
  if (prepared !== 'on' && prepared !== 'off') {
    throw new Error(`DB_PREPARED must be "on" or "off", got ${JSON.stringify(env.DB_PREPARED)}`);
  }
  if (cfg.databaseURL !== '') {
    let url;
    try {
      url = new URL(cfg.databaseURL);
    } catch {
      throw new Error('DATABASE_URL is not a valid URL');
    }
    if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
      throw new Error(`DATABASE_URL must start with postgres://, got ${url.protocol}//`);
    }
  }
  return cfg;
}

module.exports = { loadConfig };
