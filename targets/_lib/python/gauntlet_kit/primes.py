"""Seed 003's CPU work: every prime below n by trial division (no sieve, on purpose)."""
from math import isqrt


def primes_below(n: int) -> list[int]:
    found = []
    for k in range(2, n):
        # Division by 2 first, then by the odd numbers up to the square root, as the seed did.
        if k % 2 == 0:
            if k == 2:
                found.append(k)
            continue
        for d in range(3, isqrt(k) + 1, 2):
            if k % d == 0:
                break
        else:
            found.append(k)
    return found
