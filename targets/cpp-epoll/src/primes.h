#pragma once

#include <string>

// Appends the JSON array of every prime below n, found by seed 003's trial division (by 2 and
// the odd numbers up to the square root; no sieve, so the CPU cost is the seed's).
void append_primes_json(std::string& out, int n);
