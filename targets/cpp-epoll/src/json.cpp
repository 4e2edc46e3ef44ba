#include "json.h"

#include <cstdint>
#include <limits>

void append_json_string(std::string& out, std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  out += '"';
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

std::string error_json(std::string_view reason) {
  std::string out = "{\"error\":";
  append_json_string(out, reason);
  out += '}';
  return out;
}

bool parse_digits(std::string_view s, int64_t& n, bool& overflow) {
  if (s.empty()) return false;
  n = 0;
  overflow = false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    int d = c - '0';
    if (n > (std::numeric_limits<int64_t>::max() - d) / 10) overflow = true;
    if (!overflow) n = n * 10 + d;
  }
  if (overflow) n = std::numeric_limits<int64_t>::max();
  return true;
}

namespace {

enum class Kind { kObject, kArray, kString, kNumber, kBool, kNull };

// A recursive-descent validator for RFC 8259 JSON. It only keeps what the command needs:
// the kind of each top-level member and the decoded text of strings.
class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  struct Member {
    bool present = false;
    Kind kind = Kind::kNull;
    std::string text;  // decoded, when kind is kString
  };
  // What the command needs from a document: its kind and three top-level members.
  struct Command {
    Kind kind = Kind::kNull;
    Member action, value, unit;
  };

  bool parse_document(Command& cmd) {
    ws();
    if (peek() != '{') {
      if (!value(cmd.kind, nullptr, 0)) return false;
      ws();
      return pos_ == s_.size();
    }
    cmd.kind = Kind::kObject;
    pos_++;
    ws();
    if (peek() == '}') {
      pos_++;
    } else {
      for (;;) {
        std::string key;
        Member m;
        ws();
        if (peek() != '"' || !string(key)) return false;
        ws();
        if (peek() != ':') return false;
        pos_++;
        if (!value(m.kind, &m.text, 1)) return false;
        m.present = true;
        // The last duplicate wins, as in JavaScript and Go.
        if (key == "action") cmd.action = std::move(m);
        else if (key == "value") cmd.value = std::move(m);
        else if (key == "unit") cmd.unit = std::move(m);
        ws();
        if (peek() == ',') {
          pos_++;
          continue;
        }
        if (peek() == '}') {
          pos_++;
          break;
        }
        return false;
      }
    }
    ws();
    return pos_ == s_.size();
  }

 private:
  static constexpr int kMaxDepth = 64;

  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) pos_++;
  }
  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool value(Kind& kind, std::string* text, int depth) {
    if (depth > kMaxDepth) return false;
    ws();
    char c = peek();
    if (c == '{') {
      kind = Kind::kObject;
      return container('}', depth, true);
    }
    if (c == '[') {
      kind = Kind::kArray;
      return container(']', depth, false);
    }
    if (c == '"') {
      kind = Kind::kString;
      std::string scratch;
      return string(text ? *text : scratch);
    }
    if (c == 't' || c == 'f') {
      kind = Kind::kBool;
      return literal(c == 't' ? "true" : "false");
    }
    if (c == 'n') {
      kind = Kind::kNull;
      return literal("null");
    }
    kind = Kind::kNumber;
    return number();
  }

  bool container(char close, int depth, bool object) {
    pos_++;
    ws();
    if (peek() == close) {
      pos_++;
      return true;
    }
    for (;;) {
      Kind kind;
      if (object) {
        std::string key;
        ws();
        if (peek() != '"' || !string(key)) return false;
        ws();
        if (peek() != ':') return false;
        pos_++;
      }
      if (!value(kind, nullptr, depth + 1)) return false;
      ws();
      if (peek() == ',') {
        pos_++;
        continue;
      }
      if (peek() == close) {
        pos_++;
        return true;
      }
      return false;
    }
  }

  bool number() {
    size_t start = pos_;
    if (peek() == '-') pos_++;
    if (peek() == '0') {
      pos_++;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') pos_++;
    } else {
      return false;
    }
    if (peek() == '.') {
      pos_++;
      if (!(peek() >= '0' && peek() <= '9')) return false;
      while (peek() >= '0' && peek() <= '9') pos_++;
    }
    if (peek() == 'e' || peek() == 'E') {
      pos_++;
      if (peek() == '+' || peek() == '-') pos_++;
      if (!(peek() >= '0' && peek() <= '9')) return false;
      while (peek() >= '0' && peek() <= '9') pos_++;
    }
    return pos_ > start;
  }

  static void put_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xc0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += char(0xe0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3f));
      out += char(0x80 | (cp & 0x3f));
    } else {
      out += char(0xf0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3f));
      out += char(0x80 | ((cp >> 6) & 0x3f));
      out += char(0x80 | (cp & 0x3f));
    }
  }

  bool hex4(uint32_t& v) {
    if (pos_ + 4 > s_.size()) return false;
    v = 0;
    for (int i = 0; i < 4; i++) {
      char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f') v |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= uint32_t(c - 'A' + 10);
      else return false;
    }
    return true;
  }

  // One UTF-8 sequence starting at pos_, checked (no overlongs, no surrogates).
  bool utf8() {
    auto b = [&](size_t i) { return static_cast<unsigned char>(s_[i]); };
    unsigned char c = b(pos_);
    size_t len;
    uint32_t cp;
    if (c < 0x80) {
      pos_++;
      return true;
    } else if (c >= 0xc2 && c <= 0xdf) {
      len = 2, cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      len = 3, cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      len = 4, cp = c & 0x07;
    } else {
      return false;
    }
    if (pos_ + len > s_.size()) return false;
    for (size_t i = 1; i < len; i++) {
      if ((b(pos_ + i) & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (b(pos_ + i) & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    pos_ += len;
    return true;
  }

  bool string(std::string& out) {
    pos_++;  // opening quote
    for (;;) {
      if (pos_ >= s_.size()) return false;
      char c = s_[pos_];
      if (c == '"') {
        pos_++;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        size_t start = pos_;
        if (!utf8()) return false;
        out.append(s_.substr(start, pos_ - start));
        continue;
      }
      pos_++;
      if (pos_ >= s_.size()) return false;
      char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp;
          if (!hex4(cp)) return false;
          if (cp >= 0xd800 && cp <= 0xdbff) {  // a high surrogate needs its low half
            uint32_t lo;
            if (!literal("\\u") || !hex4(lo) || lo < 0xdc00 || lo > 0xdfff) return false;
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          } else if (cp >= 0xdc00 && cp <= 0xdfff) {
            return false;
          }
          put_utf8(out, cp);
          break;
        }
        default:
          return false;
      }
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

std::string parse_command(std::string_view body, std::string& action) {
  Parser::Command cmd;
  if (!Parser(body).parse_document(cmd)) return "body is not valid JSON";
  if (cmd.kind != Kind::kObject) return "body must be a JSON object";
  if (!cmd.action.present || cmd.action.kind != Kind::kString || cmd.action.text.empty())
    return "action must be a non-empty string";
  if (cmd.value.present && cmd.value.kind != Kind::kNumber) return "value must be a number";
  if (cmd.unit.present && cmd.unit.kind != Kind::kString) return "unit must be a string";
  action = std::move(cmd.action.text);
  return "";
}
