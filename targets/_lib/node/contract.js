'use strict';
// Framework-free pieces of targets/CONTRACT.md: fixed bodies, input rules, the primes
// algorithm and request IDs. The same rules in every node-* target keep them comparable;
// each target adds its own SERVER_NAME and FRAMEWORK (its contract.js).
const { primesBelow } = require('./primes');
const { nextRequestId, responseTime } = require('./request-id');

const JSON_TYPE = 'application/json; charset=utf-8';
const COMMAND_LATENCY_MS = 2; // seed 000's simulated hardware latency
const MAX_WAIT_MS = 500; // the long poll's cap
const MAX_PRIMES_N = 10000000;
const MAX_INT4 = 2147483647; // documents.id is an integer column: larger ids have no row

// Fixed bodies are serialized once, as seed 001's Node service does.
const PING_BODY = '{"ok":true,"message":"OK"}';
const HEALTHZ_BODY = '{"status":"ok"}';
const NOT_FOUND_BODY = '{"error":"not found"}';
const DEVICES_BODY =
  '[{"id":1,"type":"lightbulb","on":true},{"id":2,"type":"thermostat","on":true},' +
  '{"id":3,"type":"lock","on":false},{"id":4,"type":"camera","on":true},' +
  '{"id":5,"type":"sensor","on":true}]';

// parseUint accepts decimal digits only ("+5", "1e3", " 7" and "" are not integers);
// it returns NaN for those and Infinity past the safe integer range.
function parseUint(s) {
  if (typeof s !== 'string' || !/^[0-9]+$/.test(s)) return NaN;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : Infinity;
}

// A query parameter given twice counts by its first value, as in the Go target.
function firstValue(v) {
  return Array.isArray(v) ? v[0] : v;
}

// commandError returns why a parsed command body is rejected, or '' when it is valid.
function commandError(body) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return 'body must be a JSON object (Content-Type: application/json)';
  }
  if (typeof body.action !== 'string' || body.action === '') {
    return 'action must be a non-empty string';
  }
  if (body.value !== undefined && typeof body.value !== 'number') return 'value must be a number';
  if (body.unit !== undefined && typeof body.unit !== 'string') return 'unit must be a string';
  return '';
}

// waitMs reads the long poll's wait: absent is 0, too large is capped, anything else is null.
function waitMs(raw) {
  if (raw === undefined) return 0;
  const n = parseUint(raw);
  return Number.isNaN(n) ? null : Math.min(n, MAX_WAIT_MS);
}

module.exports = {
  JSON_TYPE, COMMAND_LATENCY_MS, MAX_WAIT_MS, MAX_PRIMES_N, MAX_INT4,
  PING_BODY, HEALTHZ_BODY, NOT_FOUND_BODY, DEVICES_BODY,
  parseUint, firstValue, commandError, waitMs, primesBelow, nextRequestId, responseTime,
};
