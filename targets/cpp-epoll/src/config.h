// The contract's environment (targets/CONTRACT.md, "Configuration").
#pragma once

#include <functional>
#include <string>

struct Config {
  std::string host = "0.0.0.0";  // listen address (IPv4): the local mode sets 127.0.0.1
  int port = 8080;
  int workers = 1;
  std::string database_url;  // empty: DB endpoints answer 503
  int pool_min = 5;
  int pool_max = 15;
  bool prepared = true;  // accepted for the contract; libpq prepares nothing either way
};

// Fills cfg from getenv; returns "" or a message naming the bad variable.
std::string load_config(const std::function<const char*(const char*)>& getenv, Config& cfg);
