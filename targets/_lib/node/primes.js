'use strict';
// Seed 003's algorithm: trial division by 2 and the odd numbers up to sqrt(k), no sieve.

function primesBelow(n) {
  const primes = [];
  for (let k = 2; k < n; k++) {
    if (isPrime(k)) primes.push(k);
  }
  return primes;
}

function isPrime(k) {
  if (k < 4) return k >= 2;
  if (k % 2 === 0) return false;
  for (let d = 3; d * d <= k; d += 2) {
    if (k % d === 0) return false;
  }
  return true;
}

module.exports = { primesBelow };
