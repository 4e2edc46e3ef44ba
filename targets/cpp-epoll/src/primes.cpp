#include "primes.h"

#include <charconv>

namespace {
bool is_prime(int k) {
  if (k % 2 == 0) return k == 2;
  for (int d = 3; d * d <= k; d += 2)
    if (k % d == 0) return false;
  return true;
}
}  // namespace

void append_primes_json(std::string& out, int n) {
  char num[16];
  out += '[';
  bool first = true;
  for (int k = 2; k < n; k++) {
    if (!is_prime(k)) continue;
    if (!first) out += ',';
    first = false;
    out.append(num, std::to_chars(num, num + sizeof num, k).ptr);
  }
  out += ']';
}
