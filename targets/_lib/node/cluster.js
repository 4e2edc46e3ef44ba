'use strict';
// The process model of every node-* target: the primary checks the environment and forks
// WORKERS workers that share the port (PM2's cluster mode, seed 001's setup, is node:cluster
// underneath); each worker serves the contract. The primary stops them on SIGTERM.
const cluster = require('node:cluster');
const { loadConfig } = require('./config');

const SHUTDOWN_DEADLINE_MS = 9500; // inside the contract's 10 s

// start is a target's whole entry point. loadWorker returns the target's runWorker(cfg) and
// is called in workers only, so the primary never loads the framework and stays small.
function start(name, loadWorker) {
  process.env.NODE_ENV = process.env.NODE_ENV || 'production';
  let cfg;
  try {
    cfg = loadConfig(process.env);
  } catch (err) {
    console.error(`${name}: ${err.message}`);
    process.exit(1);
  }

  if (cluster.isPrimary) {
    runPrimary(cfg, name);
  } else {
    loadWorker()(cfg).catch((err) => {
      console.error(`${name}: worker ${process.pid}: ${err.message}`);
      process.exit(1);
    });
  }
}

function runPrimary(cfg, name) {
  let stopping = false;
  let failed = false;
  const listening = new Set();

  const fork = () => cluster.fork();

  cluster.on('listening', (worker) => listening.add(worker.id));

  cluster.on('exit', (worker, code, signal) => {
    const started = listening.delete(worker.id);
    const clean = code === 0 && !signal;
    if (stopping) {
      if (!clean) failed = true;
      if (Object.keys(cluster.workers).length === 0) process.exit(failed ? 1 : 0);
      return;
    }
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (!started) {
      // A worker that never listened will not do better on a retry (bad port, DB down):
      // stop instead of crash-looping.
      console.error(`${name}: worker ${worker.process.pid} failed to start (${how}); stopping`);
      failed = true;
      stop();
      return;
    }
    // A worker dying under load is replaced, as PM2 does; the restart is logged.
    console.error(`${name}: worker ${worker.process.pid} exited (${how}); forking a replacement`);
    fork();
  });

  function stop() {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers);
    if (workers.length === 0) process.exit(failed ? 1 : 0);
    for (const w of workers) w.process.kill('SIGTERM');
    setTimeout(() => {
      console.error(`${name}: workers still running after ${SHUTDOWN_DEADLINE_MS} ms; killing them`);
      for (const w of Object.values(cluster.workers)) w.process.kill('SIGKILL');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
  }

  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  for (let i = 0; i < cfg.workers; i++) fork();
}

module.exports = { start, runPrimary };
