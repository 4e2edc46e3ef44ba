// JSON helpers: string escaping for responses, and a strict parser for the command body.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

// Appends s as a JSON string literal (quotes included).
void append_json_string(std::string& out, std::string_view s);

// {"error":"<reason>"}
std::string error_json(std::string_view reason);

// The device command body (targets/CONTRACT.md): an object with a non-empty string "action",
// an optional number "value" and an optional string "unit". Returns "" when valid (action is
// set, decoded) or the reason to answer 400.
std::string parse_command(std::string_view body, std::string& action);

// Parses a decimal integer made of digits only (no sign, no spaces). Returns false if s is not
// such a number; a number too large for int64 saturates at INT64_MAX with overflow set.
bool parse_digits(std::string_view s, int64_t& n, bool& overflow);
