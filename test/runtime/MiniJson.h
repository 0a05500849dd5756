//===- MiniJson.h - Strict little JSON parser for runtime tests -*- C++ -*-===//
//
// Part of decan. Test-only: parses what the runtime writes back into a tree
// and rejects anything that is not RFC 8259 JSON (trailing commas, bare
// words, unterminated strings, trailing garbage), so a malformed report
// fails the test that reads it.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TEST_RUNTIME_MINIJSON_H
#define DECAN_TEST_RUNTIME_MINIJSON_H

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace minijson {

struct Value {
  enum Kind { Null, Bool, Number, String, Array, Object } K = Null;
  bool B = false;
  double Num = 0;
  std::string Str;
  std::vector<Value> Arr;
  /// Object members in order; each carries its name in Key.
  std::vector<Value> Obj;
  std::string Key;

  const Value *get(const std::string &Name) const {
    for (auto &V : Obj)
      if (V.Key == Name)
        return &V;
    return nullptr;
  }
  /// Member access that yields a Null value when absent.
  const Value &operator[](const std::string &Key) const {
    static const Value Missing;
    const Value *V = get(Key);
    return V ? *V : Missing;
  }
  const Value &operator[](size_t I) const { return Arr.at(I); }
};

class Parser {
public:
  explicit Parser(const std::string &Text) : S(Text) {}

  bool parse(Value &Out, std::string &Err) {
    skipWs();
    if (!value(Out, 0)) {
      Err = Error + " at offset " + std::to_string(P);
      return false;
    }
    skipWs();
    if (P != S.size()) {
      Err = "trailing characters at offset " + std::to_string(P);
      return false;
    }
    return true;
  }

private:
  bool fail(const char *Msg) {
    if (Error.empty())
      Error = Msg;
    return false;
  }
  void skipWs() {
    while (P < S.size() &&
           (S[P] == ' ' || S[P] == '\n' || S[P] == '\t' || S[P] == '\r'))
      ++P;
  }
  bool lit(const char *W) {
    size_t N = std::strlen(W);
    if (S.compare(P, N, W) != 0)
      return fail("bad literal");
    P += N;
    return true;
  }
  bool string(std::string &Out) {
    if (P >= S.size() || S[P] != '"')
      return fail("expected string");
    ++P;
    while (P < S.size() && S[P] != '"') {
      unsigned char C = (unsigned char)S[P];
      if (C < 0x20)
        return fail("control character in string");
      if (C == '\\') {
        if (++P >= S.size())
          return fail("bad escape");
        char E = S[P];
        switch (E) {
        case '"':
        case '\\':
        case '/':
          Out += E;
          break;
        case 'n':
          Out += '\n';
          break;
        case 't':
          Out += '\t';
          break;
        case 'r':
          Out += '\r';
          break;
        case 'b':
          Out += '\b';
          break;
        case 'f':
          Out += '\f';
          break;
        case 'u': {
          if (P + 4 >= S.size())
            return fail("bad \\u escape");
          for (int I = 1; I <= 4; ++I)
            if (!isxdigit((unsigned char)S[P + I]))
              return fail("bad \\u escape");
          Out += (char)std::strtol(S.substr(P + 1, 4).c_str(), nullptr, 16);
          P += 4;
          break;
        }
        default:
          return fail("bad escape");
        }
        ++P;
        continue;
      }
      Out += (char)C;
      ++P;
    }
    if (P >= S.size())
      return fail("unterminated string");
    ++P;
    return true;
  }
  bool number(Value &Out) {
    size_t B = P;
    if (S[P] == '-')
      ++P;
    if (P >= S.size() || !isdigit((unsigned char)S[P]))
      return fail("bad number");
    if (S[P] == '0' && P + 1 < S.size() && isdigit((unsigned char)S[P + 1]))
      return fail("leading zero");
    while (P < S.size() && isdigit((unsigned char)S[P]))
      ++P;
    if (P < S.size() && S[P] == '.') {
      ++P;
      if (P >= S.size() || !isdigit((unsigned char)S[P]))
        return fail("bad fraction");
      while (P < S.size() && isdigit((unsigned char)S[P]))
        ++P;
    }
    if (P < S.size() && (S[P] == 'e' || S[P] == 'E')) {
      ++P;
      if (P < S.size() && (S[P] == '+' || S[P] == '-'))
        ++P;
      if (P >= S.size() || !isdigit((unsigned char)S[P]))
        return fail("bad exponent");
      while (P < S.size() && isdigit((unsigned char)S[P]))
        ++P;
    }
    Out.K = Value::Number;
    Out.Num = std::strtod(S.substr(B, P - B).c_str(), nullptr);
    return true;
  }
  bool value(Value &Out, int Depth) {
    if (Depth > 64)
      return fail("too deep");
    if (P >= S.size())
      return fail("unexpected end");
    char C = S[P];
    if (C == '{') {
      Out.K = Value::Object;
      ++P;
      skipWs();
      if (P < S.size() && S[P] == '}') {
        ++P;
        return true;
      }
      for (;;) {
        skipWs();
        std::string Key;
        if (!string(Key))
          return false;
        skipWs();
        if (P >= S.size() || S[P] != ':')
          return fail("expected ':'");
        ++P;
        skipWs();
        Value V;
        if (!value(V, Depth + 1))
          return false;
        V.Key = std::move(Key);
        Out.Obj.push_back(std::move(V));
        skipWs();
        if (P < S.size() && S[P] == ',') {
          ++P;
          continue;
        }
        if (P < S.size() && S[P] == '}') {
          ++P;
          return true;
        }
        return fail("expected ',' or '}'");
      }
    }
    if (C == '[') {
      Out.K = Value::Array;
      ++P;
      skipWs();
      if (P < S.size() && S[P] == ']') {
        ++P;
        return true;
      }
      for (;;) {
        skipWs();
        Value V;
        if (!value(V, Depth + 1))
          return false;
        Out.Arr.push_back(std::move(V));
        skipWs();
        if (P < S.size() && S[P] == ',') {
          ++P;
          continue;
        }
        if (P < S.size() && S[P] == ']') {
          ++P;
          return true;
        }
        return fail("expected ',' or ']'");
      }
    }
    if (C == '"') {
      Out.K = Value::String;
      return string(Out.Str);
    }
    if (C == 't') {
      Out.K = Value::Bool;
      Out.B = true;
      return lit("true");
    }
    if (C == 'f') {
      Out.K = Value::Bool;
      return lit("false");
    }
    if (C == 'n') {
      Out.K = Value::Null;
      return lit("null");
    }
    return number(Out);
  }

  const std::string &S;
  size_t P = 0;
  std::string Error;
};

inline bool parse(const std::string &Text, Value &Out, std::string &Err) {
  return Parser(Text).parse(Out, Err);
}

} // namespace minijson

#endif // DECAN_TEST_RUNTIME_MINIJSON_H
